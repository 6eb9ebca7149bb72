import { useEffect, useId, useRef } from "react";
import { usePriceTable } from "../../api/prices/queries";
import { useValue } from "../../api/results/queries";
import type { CompareMetric } from "../../api/results/types";
import { downloadText } from "../../lib/export-dom";
import { formatMetric } from "../../lib/format-utils";
import { driveName } from "../../lib/series-utils";
import { useExportContext } from "../chart-frame/export-context";
import { MetricSelect } from "../metric-select/metric-select";
import { formatMoney, priceTableCsv, sourceUrl } from "./price-table-utils";
import "./price-table.css";

interface Props {
  drives: number[];
  metrics: CompareMetric[];
  metric: string | null;
  onMetric: (metric: string) => void;
  fileBase: string;
}

/** The review's price table by capacity class, and performance per dollar of the drives;
 * its CSV goes into the chart pack. */
export function PriceTableSection({ drives, metrics, metric, onMetric, fileBase }: Props) {
  const table = usePriceTable("USD", drives);
  const value = useValue(drives, metric);
  const { register } = useExportContext();
  const id = useId();
  const csv = useRef<() => string | null>(() => null);
  csv.current = () => (table.data ? priceTableCsv(table.data, value.data ?? null) : null);
  useEffect(() => {
    if (!register) return;
    return register(id, { name: `${fileBase}-price-table`, csv: () => csv.current() });
  }, [register, id, fileBase]);
  const title = metrics.find((m) => m.metric === metric)?.names.title;
  return (
    <section className="price-table" data-chart="price-table" aria-labelledby="price-table-title">
      <div className="price-table__head">
        <h2 id="price-table-title" className="chart-frame__title">
          Prices and performance per dollar
        </h2>
        <button
          type="button"
          className="chart-frame__export-button"
          disabled={!table.data}
          onClick={() =>
            table.data &&
            downloadText(
              priceTableCsv(table.data, value.data ?? null),
              `${fileBase}-price-table.csv`,
              "text/csv",
            )
          }
        >
          CSV
        </button>
      </div>
      <MetricSelect
        label="Per dollar of"
        metrics={metrics.filter((m) => m.performance)}
        value={metric ?? ""}
        onChange={onMetric}
      />
      {value.error && <p className="muted">{value.error.message}</p>}
      {value.data && (
        <>
          {value.data.rows.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th>Drive</th>
                  <th className="num">{title ?? "Value"}</th>
                  <th className="num">Lowest price</th>
                  <th className="num">{value.data.unit}</th>
                </tr>
              </thead>
              <tbody>
                {value.data.rows.map((r) => (
                  <tr key={r.drive_id}>
                    <td>{driveName(r)}</td>
                    <td className="num">{formatMetric(r.value)}</td>
                    <td className="num">{formatMoney(r.price, r.currency)}</td>
                    <td className="num">{formatMetric(r.per_unit_price)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {value.data.unpriced.length > 0 && (
            <p className="muted" data-testid="unpriced">
              No price for: {value.data.unpriced.map((l) => driveName({ label: l })).join(", ")} (simulated drives and
              models without a price observation have no performance per dollar).
            </p>
          )}
        </>
      )}
      {table.isPending && <p className="muted">Loading prices…</p>}
      {table.error && <p className="muted">Could not load prices: {table.error.message}</p>}
      {table.data?.classes.map((c) => (
        <div key={c.label}>
          <h3>{c.label}</h3>
          <table>
            <thead>
              <tr>
                <th>Model</th>
                <th>Capacity</th>
                <th className="num">Lowest price</th>
                <th>Retailer, date</th>
                <th className="num">Per GB</th>
              </tr>
            </thead>
            <tbody>
              {c.models.map((m) => (
                <tr key={m.model_id}>
                  <td>
                    {m.vendor} {m.model}
                  </td>
                  <td>{m.capacity_label}</td>
                  <td className="num">{formatMoney(m.lowest.price, table.data.currency)}</td>
                  <td>
                    {sourceUrl(m.lowest.source) ? (
                      <a
                        href={sourceUrl(m.lowest.source) ?? undefined}
                        target="_blank"
                        rel="noreferrer"
                        title={m.lowest.source ?? undefined}
                      >
                        {m.lowest.retailer}
                      </a>
                    ) : (
                      m.lowest.retailer
                    )}
                    , {m.lowest.observed_on}
                  </td>
                  <td className="num">{formatMoney(m.price_per_gb, table.data.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      {table.data && table.data.classes.length === 0 && (
        <p className="muted">No prices in {table.data.currency} yet: import them on the Catalog page.</p>
      )}
    </section>
  );
}
