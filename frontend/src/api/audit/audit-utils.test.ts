import { describe, expect, it } from "vitest";
import { auditSearch } from "./audit-utils";

describe("auditSearch", () => {
  it("sends only the limit when nothing is filtered", () => {
    expect(auditSearch({ limit: 50 })).toBe("limit=50");
    expect(auditSearch({ limit: 50, action: "  ", driveId: null, beforeId: null })).toBe("limit=50");
  });

  it("adds the action (trimmed), the drive and the page cursor", () => {
    expect(auditSearch({ limit: 25, action: " user.created ", driveId: 3, beforeId: 120 })).toBe(
      "limit=25&action=user.created&drive_id=3&before_id=120",
    );
  });

  it("keeps drive 0 and escapes the action", () => {
    expect(auditSearch({ limit: 10, action: "a b&c", driveId: 0 })).toBe(
      "limit=10&action=a+b%26c&drive_id=0",
    );
  });
});
