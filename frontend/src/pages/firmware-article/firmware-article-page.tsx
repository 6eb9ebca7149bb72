import { Link, useParams, useSearchParams } from "react-router";
import type { Article } from "../../api/results/types";
import { useFirmwareArticle } from "../../api/results/queries";
import { ArticleAppendix, ArticleTop } from "../../components/article-view/article-view";
import { ErrorBox } from "../../components/error-box/error-box";
import { parseModelId, readFirmwareArticle } from "../firmware/firmware-utils";
import "../report/report-page.css";

/**
 * One drive's firmware versions as an article (`/models/3/firmware/article?drive=7&firmware=1.00
 * &firmware=1.01`): a column per version of the drive's runs that recorded it, compared as two
 * drives are, the version given last under review; opened from the Firmware history page.
 */
export function FirmwareArticlePage() {
  const { id } = useParams();
  const modelId = parseModelId(id);
  const [params] = useSearchParams();
  const { drive, firmware } = readFirmwareArticle(params);
  const article = useFirmwareArticle(drive, firmware);
  const back = modelId === null ? "/catalog" : `/models/${modelId}/firmware`;
  return (
    <div className="page report print-page" data-testid="firmware-article">
      <div className="report__tools no-print">
        <Link to={back}>Back to Firmware history</Link>
        <button type="button" className="button" onClick={() => window.print()}>
          Print or save as PDF
        </button>
      </div>
      <header className="report__head print-section">
        <h1>{article.data ? firmwareTitle(article.data) : `Firmware ${firmware.join(" vs ")}`}</h1>
        {article.data && <p className="muted">{firmwareNote(article.data)}</p>}
        {drive === null && <p>Choose a drive and two firmware versions on the Firmware history page.</p>}
      </header>
      {article.error && <ErrorBox error={article.error} title="Could not load the article" />}
      {article.isPending && drive !== null && <p className="muted">Loading the article…</p>}
      {article.data && <ArticleTop article={article.data} />}
      {article.data && <ArticleAppendix article={article.data} />}
    </div>
  );
}

/** "Drive X: firmware 1.01 vs 1.00" (the version under review first). */
export function firmwareTitle(article: Article): string {
  const reviewed = article.drives.find((d) => d.under_review);
  const others = article.drives.filter((d) => !d.under_review).map((d) => d.firmware);
  const name = reviewed?.name.replace(/ \(fw [^)]*\)$/, "") ?? "";
  return `${name}: firmware ${[reviewed?.firmware ?? "", ...others].join(" vs ")}`;
}

function firmwareNote(article: Article): string {
  const reviewed = article.drives.find((d) => d.under_review);
  const others = article.drives.filter((d) => !d.under_review).map((d) => d.firmware);
  return (
    `Each column is this drive's runs that recorded that firmware, compared as two drives are: ` +
    `firmware ${reviewed?.firmware ?? ""} under review against ${others.join(", ")}. ` +
    "Better or worse only where the runs show the difference is real."
  );
}
