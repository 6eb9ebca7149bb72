import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ZipStream, zipEntries } from "./zip-utils";

const text = (s: string) => new TextEncoder().encode(s);

describe("the chart pack's zip", () => {
  it("holds every file as given, text deflated and PNGs stored", async () => {
    const svg = text(`<svg>${"<path d='M0 0h1'/>".repeat(500)}</svg>`);
    const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
    const blob = await zipEntries([
      { name: "compare-hdtach-all.svg", data: svg },
      { name: "compare-hdtach-all.png", data: png },
      { name: "compare-hdtach-all.csv", data: text("series,position_pct,mbps\nA,0,400\n") },
    ]);
    const bytes = new Uint8Array(await blob.arrayBuffer());
    expect(new DataView(bytes.buffer).getUint32(0, true)).toBe(0x04034b50);
    const files = unzipSync(bytes);
    expect(Object.keys(files).sort()).toEqual([
      "compare-hdtach-all.csv",
      "compare-hdtach-all.png",
      "compare-hdtach-all.svg",
    ]);
    expect(files["compare-hdtach-all.svg"]).toEqual(svg);
    expect(files["compare-hdtach-all.png"]).toEqual(png);
    // The SVG is compressed: the archive is far smaller than the file.
    expect(bytes.length).toBeLessThan(svg.length / 4);
  });

  it("refuses a file name given twice", () => {
    const zip = new ZipStream();
    zip.add("a.svg", text("<svg/>"));
    expect(() => zip.add("a.svg", text("<svg/>"))).toThrow(/already has a file named a.svg/);
  });
});
