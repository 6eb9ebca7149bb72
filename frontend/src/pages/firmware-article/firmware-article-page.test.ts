import { describe, expect, it } from "vitest";
import type { Article, ArticleDrive } from "../../api/results/types";
import { firmwareTitle } from "./firmware-article-page";

const column = (id: number, firmware: string, under_review: boolean): ArticleDrive => ({
  id,
  drive_id: 7,
  name: `Drive X (fw ${firmware})`,
  label: `drivelab X 1 TB (X-1), firmware ${firmware}`,
  model: "drivelab X",
  simulated: false,
  under_review,
  capacity_gb: 1000,
  capacity: "1 TB",
  firmware,
  price: null,
  price_text: "no price",
  price_per_gb: null,
});

describe("firmwareTitle", () => {
  it("names the drive once and the version under review first", () => {
    const article: Article = {
      under_review: 2,
      currency: "USD",
      by_firmware: 7,
      drives: [column(1, "1.00", false), column(2, "1.01", true)],
      headline: [],
      findings: [],
      appendix: [],
    };
    expect(firmwareTitle(article)).toBe("Drive X: firmware 1.01 vs 1.00");
  });
});
