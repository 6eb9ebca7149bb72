import { describe, expect, it } from "vitest";
import type { PriceTable } from "../../api/prices/queries";
import { formatMoney, priceTableCsv, sourceUrl } from "./price-table-utils";

describe("price table", () => {
  it("writes one CSV row per model with its class", () => {
    const table = {
      currency: "USD",
      currencies: ["USD"],
      classes: [
        {
          label: "480/500/512 GB",
          sizes_gb: [480, 500, 512],
          models: [
            {
              model_id: 1,
              vendor: "Samsung",
              model: "850 EVO",
              capacity_bytes: 500e9,
              capacity_label: "500 GB",
              prices: [],
              lowest: {
                retailer: "Shop, Inc",
                price: 149.99,
                observed_on: "2015-06-01",
                source: "https://example.org/review",
                price_per_gb: 0.3,
              },
              price_per_gb: 0.3,
            },
          ],
        },
      ],
    } as PriceTable;
    expect(priceTableCsv(table).split("\n")[1]).toBe(
      '480/500/512 GB,Samsung,850 EVO,500 GB,149.99,USD,"Shop, Inc",2015-06-01,0.3,https://example.org/review',
    );
  });

  it("formats money", () => {
    expect(formatMoney(149.99, "USD")).toBe("$149.99");
    expect(formatMoney(0.2999, "USD")).toBe("$0.300");
  });
});

describe("sourceUrl", () => {
  it("takes the address out of a cited source", () => {
    expect(sourceUrl("https://a.example/x.html | A: review (2015)")).toBe("https://a.example/x.html");
    expect(sourceUrl("retailer flyer")).toBeNull();
    expect(sourceUrl(null)).toBeNull();
  });
});
