import { useState } from "react";
import type {
  Article,
  ArticleDiff,
  ArticleDrive,
  ArticleGroup,
  ArticleRow,
} from "../../api/results/types";
import { appendixSize, columnOrder, formatPct } from "./article-utils";
import "./article-view.css";

const name = (d: ArticleDrive) => `${d.name}${d.simulated ? " (simulated)" : ""}`;

/** The drives compared: capacity in GB, firmware (or that it was not reported), price. */
export function ArticleDrives({ article }: { article: Article }) {
  const drives = columnOrder(article.drives);
  return (
    <section className="article__part print-section" aria-label="The drives">
      <table className="table article__table" data-testid="article-drives">
        <thead>
          <tr>
            <th>Drive</th>
            <th>Model</th>
            <th className="num">Capacity</th>
            <th>Firmware</th>
            <th className="num">Price</th>
            <th className="num">Per GB</th>
          </tr>
        </thead>
        <tbody>
          {drives.map((d) => (
            <tr key={d.id} data-drive={d.id}>
              <td>
                {name(d)}
                {d.under_review && <span className="cell-sub">under review</span>}
              </td>
              <td>{d.model}</td>
              <td className="num nowrap">{d.capacity}</td>
              <td className={d.firmware === "firmware not reported" ? "muted" : "mono"}>
                {d.firmware}
              </td>
              <td className="num nowrap">{d.price_text}</td>
              <td className="num nowrap">
                {d.price_per_gb === null ? "—" : `${d.price_per_gb.toFixed(3)} ${article.currency}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The colour of a difference: better and worse only when the test says it is real. */
function diffLook(verdict: ArticleDiff["verdict"]): "better" | "worse" | "same" {
  return verdict === "better" || verdict === "worse" ? verdict : "same";
}

function diffTitle(diff: ArticleDiff): string {
  const ci =
    diff.low_pct != null && diff.high_pct != null
      ? ` (95% interval ${formatPct(diff.low_pct)} to ${formatPct(diff.high_pct)})`
      : "";
  const verdict =
    diff.verdict === "better" || diff.verdict === "worse"
      ? `${diff.verdict} by ${formatPct(diff.pct)}${ci}`
      : diff.verdict === "same"
        ? `the same (${formatPct(diff.pct)})`
        : `${formatPct(diff.pct)}${ci}: ${diff.verdict}`;
  return `the drive under review: ${verdict}`;
}

/** A row's cells in the drives' order; for the other drives, the reviewed one's difference. */
function Cells({ row, drives }: { row: ArticleRow; drives: ArticleDrive[] }) {
  return (
    <>
      {drives.map((d) => {
        const cell = row.cells[String(d.id)];
        const diff = row.diff[String(d.id)];
        const apart = row.set_apart?.[String(d.id)];
        return (
          <td
            key={d.id}
            className={`num article__cell${cell?.best ? " article__best" : ""}`}
            data-drive={d.id}
          >
            <span className="nowrap">{cell?.text ?? "—"}</span>
            {diff && (
              <span
                className={`cell-sub nowrap article__diff--${diffLook(diff.verdict)}`}
                data-verdict={diff.verdict}
                title={diffTitle(diff)}
              >
                {formatPct(diff.pct)}
              </span>
            )}
            {apart && (
              <span className="cell-sub" title={apart}>
                not ranked
              </span>
            )}
          </td>
        );
      })}
    </>
  );
}

/** The figures reviewers quote, the drive under review's difference under each other drive. */
export function ArticleHeadline({ article }: { article: Article }) {
  const drives = columnOrder(article.drives);
  const reviewed = drives.find((d) => d.under_review);
  if (article.headline.length === 0) {
    return (
      <section className="article__part" aria-label="Headline figures">
        <h2>Headline figures</h2>
        <p className="muted">No test these figures come from has finished on these drives yet.</p>
      </section>
    );
  }
  return (
    <section className="article__part print-section" aria-label="Headline figures">
      <h2>Headline figures</h2>
      {reviewed && drives.length > 1 && (
        <p className="muted article__note">
          Under each other {article.by_firmware != null ? "version" : "drive"}: how{" "}
          {reviewed.name} compares to it (better or worse as the figure reads: lower latency and
          fewer stalls are better).
        </p>
      )}
      <table className="table article__table" data-testid="article-headline">
        <thead>
          <tr>
            <th>Figure</th>
            {drives.map((d) => (
              <th key={d.id} className="num">
                {d.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {article.headline.map((row) => (
            <tr key={row.key} data-figure={row.key}>
              <td>
                {row.label}
                {row.conditions && <span className="cell-sub">⚠ {row.conditions}</span>}
              </td>
              <Cells row={row} drives={drives} />
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** What each drive did, in words, from drivelab's analyses; what was not measured, said. */
export function ArticleFindings({ article }: { article: Article }) {
  const drives = new Map(article.drives.map((d) => [d.id, d]));
  return (
    <section className="article__part print-section" aria-label="Findings">
      <h2>Findings</h2>
      <div className="article__findings">
        {article.findings.map((f) => {
          const d = drives.get(f.drive_id);
          return (
            <div key={f.drive_id} data-testid="article-findings" data-drive={f.drive_id}>
              <h3>{d ? name(d) : `drive ${f.drive_id}`}</h3>
              <ul>
                {f.findings.map((x) => (
                  <li key={x.topic + x.text} data-topic={x.topic}>
                    {x.text}
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
      </div>
    </section>
  );
}

function Group({ group, drives }: { group: ArticleGroup; drives: ArticleDrive[] }) {
  return (
    <div className="article__group" data-testid="appendix-group">
      <h3>
        {group.plan} · {group.test}
      </h3>
      {group.warnings.length > 0 && (
        <ul className="compare-warnings" aria-label={`Warnings for ${group.plan}, ${group.test}`}>
          {group.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      <table className="table article__table">
        <thead>
          <tr>
            <th>Measure</th>
            {drives.map((d) => (
              <th key={d.id} className="num">
                {d.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {group.rows.map((row) => (
            <tr key={row.key} data-metric={row.key}>
              <td title={row.key}>{row.label}</td>
              <Cells row={row} drives={drives} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every other result, grouped by plan and test: collapsed on screen; printed only when the
 * reader asks for it. */
export function ArticleAppendix({
  article,
  printable = true,
}: {
  article: Article;
  /** Offer "include in print" (the Report). */
  printable?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [print, setPrint] = useState(false);
  const drives = columnOrder(article.drives);
  const size = appendixSize(article.appendix);
  if (size.rows === 0) return null;
  return (
    <section
      className={`article__part article__appendix${print ? " print-break-before" : " no-print"}`}
      aria-label="Appendix"
    >
      {printable && (
        <label className="no-print article__print-toggle">
          <input type="checkbox" checked={print} onChange={(e) => setPrint(e.target.checked)} />{" "}
          Include the appendix in print
        </label>
      )}
      <details
        open={open || print}
        onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}
        data-testid="appendix"
      >
        <summary>
          <h2>
            Appendix: every other result ({size.rows} figures in {size.groups} tests)
          </h2>
        </summary>
        {(open || print) &&
          article.appendix.map((g) => (
            <Group key={`${g.plan}/${g.test}`} group={g} drives={drives} />
          ))}
      </details>
    </section>
  );
}

/** The top of an article: the drives, the headline figures, the findings. */
export function ArticleTop({ article }: { article: Article }) {
  return (
    <div className="article" data-testid="article">
      <ArticleDrives article={article} />
      <ArticleHeadline article={article} />
      <ArticleFindings article={article} />
    </div>
  );
}
