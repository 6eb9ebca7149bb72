import { describe, expect, it } from "vitest";
import {
  buildSvgDocument,
  csvDocument,
  escapeXml,
  exportBodyWidth,
  exportFileName,
  legendRows,
  pngSize,
  roundMeasured,
  simulatedMark,
  svgLayout,
  toCsv,
  uniqueHeader,
  wrapText,
} from "./export-utils";

/** A minimal well-formedness check: every tag closes in order, attributes are quoted. */
function parseTags(xml: string): string[] {
  const stack: string[] = [];
  const seen: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  const stripped = xml.replace(tag, (_m, close: string, name: string, _a, self: string) => {
    if (close) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
    } else {
      seen.push(name);
      if (!self) stack.push(name);
    }
    return "";
  });
  if (stack.length) throw new Error(`unclosed <${stack.join(", ")}>`);
  if (/[<>]/.test(stripped)) throw new Error(`stray markup: ${stripped.match(/.{0,20}[<>].{0,20}/)}`);
  return seen;
}

const meta = {
  title: "4K random write IOPS <QD32> & more",
  conditions: "consistency · QD32 · span 100% · incompressible · OP 0%",
  provenance: "firmware sim (Simulated drive A) · fio-3.36 · 2026-11-21",
  legend: [
    { label: "Simulated drive A", color: "#2563eb", highlight: true },
    { label: "Simulated drive B", color: "#ea580c" },
  ],
};

describe("buildSvgDocument", () => {
  it("is one well-formed SVG with title, conditions, legend, body and provenance", () => {
    const body = '<svg x="0" y="0" width="100" height="50"><path d="M0 0L10 10" stroke="red"/></svg>';
    const svg = buildSvgDocument(meta, body, exportBodyWidth(650), 300);
    const tags = parseTags(svg);
    expect(tags[0]).toBe("svg");
    expect(tags).toContain("path");
    expect(svg).toContain('width="650"');
    expect(svg).toContain("4K random write IOPS &lt;QD32&gt; &amp; more");
    expect(svg).toMatch(/data-export="conditions"><tspan[^>]*>consistency/);
    expect(svg).toMatch(/data-export="provenance"><tspan[^>]*>firmware sim/);
    expect(svg.match(/data-export="legend"/g)).toHaveLength(2);
    expect(svg).toContain('font-weight="700" data-export="legend">Simulated drive A');
  });

  it("leaves out lines it has no text for", () => {
    const svg = buildSvgDocument({ title: "T" }, "", 100, 40);
    parseTags(svg);
    expect(svg).not.toContain("conditions");
    expect(svg).not.toContain("provenance");
  });
});

describe("layout", () => {
  it("makes the document as wide as the article column", () => {
    for (const width of [560, 650, 800]) {
      expect(svgLayout(meta, exportBodyWidth(width), 300).width).toBe(width);
    }
  });

  it("wraps the legend into rows that fit", () => {
    const items = Array.from({ length: 6 }, (_, i) => ({ label: `Drive number ${i}`, color: "#000" }));
    const { rows, positions } = legendRows(items, 300);
    expect(rows).toBeGreaterThan(1);
    expect(positions[0]).toEqual([0, 0]);
    const taller = svgLayout({ title: "t", legend: items }, 300, 100).height;
    expect(taller).toBeGreaterThan(svgLayout({ title: "t" }, 300, 100).height);
  });

  it("wraps a legend label wider than the image, whole", () => {
    const long =
      "drivelab Simulated drive A 0.268 GB, full-span sequential write pass, 128K QD1 (steps down at 30.2% (64.1→42.4 MB/s), 70.2% (42.4→20.8 MB/s))";
    const items = [
      { label: long, color: "#000" },
      { label: "short one", color: "#111" },
    ];
    const { rows, positions, lines } = legendRows(items, 626);
    expect(lines[0]!.length).toBeGreaterThan(1);
    expect(lines[0]!.join(" ")).toBe(long);
    expect(lines[0]!.every((l) => 10 + 4 + l.length * 11 * 0.58 <= 626)).toBe(true);
    expect(positions).toEqual([[0, 0], [0, lines[0]!.length]]);
    expect(rows).toBe(lines[0]!.length + 1);
    const svg = buildSvgDocument({ title: "t", legend: items }, "", 626, 50);
    parseTags(svg);
    expect(svg).toContain("(42.4→20.8 MB/s))</tspan>");
  });
});

describe("wrapText", () => {
  it("breaks long lines at words to fit the width", () => {
    const long = "drivelab · Simulated drive A: fw sim, fio-3.36, 2026-11-21; ".repeat(4);
    const lines = wrapText(long, 300, 9);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((l) => l.length * 9 * 0.56 <= 300)).toBe(true);
    expect(lines.join(" ")).toBe(long.trim());
    const svg = buildSvgDocument({ title: "t", provenance: long }, "", 300, 50);
    parseTags(svg);
    expect(svg.match(/<tspan/g)?.length).toBe(1 + lines.length);
  });
});

describe("pngSize", () => {
  it("is twice the SVG for an article column", () => {
    expect(pngSize(650, 391)).toEqual({ width: 1300, height: 782 });
    expect(pngSize(560, 300, 3)).toEqual({ width: 1680, height: 900 });
  });
});

describe("toCsv and names", () => {
  it("quotes what needs quoting and keeps numbers whole", () => {
    expect(toCsv(["drive", "iops"], [["A, the first", 12345.678], ['say "hi"', null]])).toBe(
      'drive,iops\n"A, the first",12345.678\n"say ""hi""",\n',
    );
  });

  it("names downloads from their parts", () => {
    expect(exportFileName(["compare", "Consistency", "linear"], "svg")).toBe(
      "compare-consistency-linear.svg",
    );
    expect(exportFileName(["compare", "4K QD32 / write"], "png")).toBe("compare-4k-qd32-write.png");
  });

  it("says no word twice where a part repeats the one before", () => {
    expect(exportFileName(["compare", "compare-qd-sweep-iops", "randread"], "png")).toBe(
      "compare-qd-sweep-iops-randread.png",
    );
    expect(exportFileName(["run", "12", "run-12-throughput"], "svg")).toBe("run-12-throughput.svg");
    expect(exportFileName(["compare", "consistency", "consistency"], "csv")).toBe("compare-consistency.csv");
    // Words that only look alike stay.
    expect(exportFileName(["compare", "comparison"], "csv")).toBe("compare-comparison.csv");
  });

  it("writes every CSV header name once", () => {
    const text = toCsv(["drive", "firmware", "value", "firmware", "drive", "firmware"], [[1, 2, 3, 4, 5, 6]]);
    const header = text.split("\n")[0]!.split(",");
    expect(new Set(header).size).toBe(header.length);
    expect(header.slice(0, 3)).toEqual(["drive", "firmware", "value"]);
    expect(uniqueHeader(["a", "b"])).toEqual(["a", "b"]);
  });

  it("escapes XML", () => {
    expect(escapeXml(`a<b>&"c'`)).toBe("a&lt;b&gt;&amp;&quot;c&apos;");
  });
});

describe("article exports", () => {
  it("round values to what the measurement supports", () => {
    expect([3512.3456, 85.23456, 0.0123456, 123456.7, 0].map(roundMeasured)).toEqual([
      3512, 85.23, 0.01235, 123457, 0,
    ]);
  });

  it("lead a CSV with what it holds", () => {
    const text = csvDocument(
      { title: "T", metric: "a:b:c (IOPS)", simulated: "Simulated drive: A", warnings: ["w1"] },
      ["drive", "value"],
      [["A", 1234.5678]],
    );
    expect(text).toBe(
      "# title: T\n# metric: a:b:c (IOPS)\n# simulated: Simulated drive: A\n# warning: w1\n" +
        "drive,value\nA,1235\n",
    );
  });

  it("carry the simulated mark and the warnings in the SVG, and wrap a long title", () => {
    const meta = {
      title: "Performance consistency: 4K random write IOPS (linear, zoomed, from t = 1400 s)",
      simulated: simulatedMark(["Simulated drive A"]),
      warnings: ["measured with different span: 32 MiB (A); 1 GiB (B)"],
      legend: [{ label: "read pass", color: "#123456", dashed: true }],
    };
    const svg = buildSvgDocument(meta, "<g/>", 300, 100);
    expect(svg).toContain('data-export="simulated"');
    expect(svg).toContain("Simulated drive: Simulated drive A");
    expect(svg).toContain('data-export="warnings"');
    expect(svg).toContain('stroke-dasharray="3 2"');
    expect(wrapText(meta.title, 300, 16, true).length).toBeGreaterThan(1);
    expect(wrapText("x".repeat(100), 100, 12).every((l) => l.length * 12 * 0.58 <= 100)).toBe(true);
  });
});
