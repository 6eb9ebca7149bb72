import { describe, expect, it } from "vitest";
import { crc32, zipStore } from "./zip-utils";

const text = (s: string) => new TextEncoder().encode(s);

describe("crc32", () => {
  it("matches the standard check values", () => {
    expect(crc32(text("123456789"))).toBe(0xcbf43926);
    expect(crc32(text(""))).toBe(0);
    expect(crc32(text("The quick brown fox jumps over the lazy dog"))).toBe(0x414fa339);
  });
});

describe("zipStore", () => {
  it("writes local headers, the central directory and its end record", () => {
    const zip = zipStore([
      { name: "a.svg", data: text("<svg/>") },
      { name: "a.png", data: new Uint8Array([137, 80, 78, 71]) },
    ]);
    const view = new DataView(zip.buffer);
    expect(view.getUint32(0, true)).toBe(0x04034b50);
    const end = zip.length - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    expect(view.getUint16(end + 10, true)).toBe(2);
    const centralAt = view.getUint32(end + 16, true);
    expect(view.getUint32(centralAt, true)).toBe(0x02014b50);
    // the first entry's data follows its 30-byte header and its name
    expect(new TextDecoder().decode(zip.slice(35, 41))).toBe("<svg/>");
    expect(view.getUint32(14, true)).toBe(crc32(text("<svg/>")));
  });
});
