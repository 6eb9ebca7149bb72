import { describe, expect, it } from "vitest";
import {
  clampFraction,
  formatCapacity,
  formatDateTime,
  formatDecimalBytes,
  formatDuration,
  formatFullDateTime,
  formatMetric,
  formatPercent,
} from "./format-utils";

describe("formatCapacity", () => {
  it("uses decimal units as printed on the box", () => {
    expect(formatCapacity(1_000_204_886_016)).toBe("1 TB");
    expect(formatCapacity(2_000_398_934_016)).toBe("2 TB");
    expect(formatCapacity(500_107_862_016)).toBe("500 GB");
    expect(formatCapacity(960_197_124_096)).toBe("960 GB");
    expect(formatCapacity(256_060_514_304)).toBe("256 GB");
  });

  it("writes small and simulated drives in GB, as the api's labels do", () => {
    expect(formatCapacity(256 * 1024 ** 2)).toBe("0.268 GB");
    expect(formatCapacity(1024 ** 3)).toBe("1.07 GB");
    expect(formatCapacity(16 * 1024 ** 3)).toBe("17.18 GB");
    expect(formatCapacity(-1)).toBe("—");
  });

  it("keeps two decimals below 100 so enterprise sizes stay exact", () => {
    expect(formatCapacity(1_920_383_410_176)).toBe("1.92 TB");
    expect(formatCapacity(3_840_755_982_336)).toBe("3.84 TB");
    expect(formatCapacity(15_360_950_534_144)).toBe("15.36 TB");
  });

  it("is decimal, not binary (a 1 GiB simulated drive is 1.07 GB)", () => {
    expect(formatDecimalBytes(1024 ** 3)).toBe("1.07 GB");
    expect(formatDecimalBytes(64 * 1024 ** 2)).toBe("67.11 MB");
  });

  it("handles small sizes, carries and bad input", () => {
    expect(formatDecimalBytes(0)).toBe("0 B");
    expect(formatDecimalBytes(999)).toBe("999 B");
    expect(formatDecimalBytes(1000)).toBe("1 kB");
    expect(formatDecimalBytes(999_999_999_999)).toBe("1 TB");
    expect(formatDecimalBytes(-1)).toBe("—");
    expect(formatDecimalBytes(Number.NaN)).toBe("—");
  });
});

describe("formatDuration", () => {
  it("picks the two most significant units", () => {
    expect(formatDuration(0)).toBe("0s");
    expect(formatDuration(44.6)).toBe("45s");
    expect(formatDuration(59.4)).toBe("59s");
    expect(formatDuration(60)).toBe("1m 00s");
    expect(formatDuration(192)).toBe("3m 12s");
    expect(formatDuration(3600 + 125)).toBe("1h 02m");
    expect(formatDuration(2 * 86400 + 3 * 3600 + 59)).toBe("2d 03h");
  });

  it("rounds before splitting so 59.6 s is a minute, not 0m 60s", () => {
    expect(formatDuration(59.6)).toBe("1m 00s");
    expect(formatDuration(3599.7)).toBe("1h 00m");
  });

  it("shows a dash when there is no duration", () => {
    expect(formatDuration(null)).toBe("—");
    expect(formatDuration(undefined)).toBe("—");
    expect(formatDuration(-5)).toBe("—");
  });
});

describe("formatDateTime", () => {
  // Dates built from local components, so the test passes in any time zone.
  const now = new Date(2026, 10, 21, 15, 0, 0);

  it("shows only the time for today", () => {
    expect(formatDateTime(new Date(2026, 10, 21, 9, 5, 3).toISOString(), now)).toBe("09:05:03");
  });

  it("adds the day within the year, and the year otherwise", () => {
    expect(formatDateTime(new Date(2026, 10, 20, 23, 59, 0).toISOString(), now)).toBe(
      "Nov 20 23:59",
    );
    expect(formatDateTime(new Date(2025, 0, 2, 7, 8, 0).toISOString(), now)).toBe(
      "2025-01-02 07:08",
    );
  });

  it("shows a dash for missing or broken input", () => {
    expect(formatDateTime(null, now)).toBe("—");
    expect(formatDateTime("not a date", now)).toBe("—");
  });

  it("gives a full timestamp for tooltips", () => {
    expect(formatFullDateTime(new Date(2026, 0, 5, 4, 3, 2).toISOString())).toBe(
      "2026-01-05 04:03:02",
    );
    expect(formatFullDateTime(null)).toBe("");
  });
});

describe("formatPercent / clampFraction", () => {
  it("clamps to 0..1", () => {
    expect(clampFraction(-0.2)).toBe(0);
    expect(clampFraction(1.7)).toBe(1);
    expect(clampFraction(Number.NaN)).toBe(0);
    expect(clampFraction(null)).toBe(0);
  });

  it("never claims 100% before the end", () => {
    expect(formatPercent(0.999)).toBe("99%");
    expect(formatPercent(1)).toBe("100%");
    expect(formatPercent(0.426)).toBe("42%");
    expect(formatPercent(0)).toBe("0%");
  });
});

describe("formatMetric", () => {
  it("scales precision with magnitude", () => {
    expect(formatMetric(3512.34)).toBe("3,512");
    expect(formatMetric(123456.7)).toBe("123,457");
    expect(formatMetric(85.23)).toBe("85.2");
    expect(formatMetric(4.567)).toBe("4.57");
    expect(formatMetric(0.012345)).toBe("0.0123");
    expect(formatMetric(0)).toBe("0");
    expect(formatMetric(-42.42)).toBe("-42.4");
    expect(formatMetric(null)).toBe("—");
  });
});
