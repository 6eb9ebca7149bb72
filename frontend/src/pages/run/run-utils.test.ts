import { describe, expect, it } from "vitest";
import { noSamplesText } from "./run-utils";

describe("noSamplesText", () => {
  it("says an before a vowel and a before a consonant", () => {
    expect(noSamplesText("idle")).toBe("An idle step reports no per-second I/O samples.");
    expect(noSamplesText("purge")).toBe("A purge step reports no per-second I/O samples.");
  });
});
