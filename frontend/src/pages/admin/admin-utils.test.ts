import { describe, expect, it } from "vitest";
import type { BenchDevice } from "../../api/benches/queries";
import type { Drive, Me } from "../../api/types";
import {
  auditSubject,
  formatDetails,
  isAdmin,
  newUserPayload,
  olderCursor,
  parseDriveFilter,
  registeredAs,
  tokenActive,
} from "./admin-utils";

const me = (role: Me["role"]): Me => ({ id: 1, name: "x", role, via: "session" });

describe("isAdmin", () => {
  it("is true only for admins, and not before the user is known", () => {
    expect(isAdmin(me("admin"))).toBe(true);
    expect(isAdmin(me("reviewer"))).toBe(false);
    expect(isAdmin(me("viewer"))).toBe(false);
    expect(isAdmin(undefined)).toBe(false);
  });
});

describe("newUserPayload", () => {
  it("trims the name and sends the password only when typed", () => {
    expect(newUserPayload({ name: " bob ", role: "reviewer", password: "" })).toEqual({
      payload: { name: "bob", role: "reviewer" },
      errors: {},
    });
    expect(newUserPayload({ name: "bob", role: "admin", password: " secret pw 1 " }).payload).toEqual({
      name: "bob",
      role: "admin",
      password: " secret pw 1 ",
    });
  });

  it("names the missing name and an unknown role", () => {
    expect(newUserPayload({ name: "  ", role: "root", password: "" }).errors).toEqual({
      name: "is required",
      role: "choose viewer, reviewer or admin",
    });
  });
});

describe("tokenActive", () => {
  it("is false once revoked", () => {
    const t = { id: 1, user_id: 1, name: "api", created_at: "2026-11-21T10:00:00Z", last_used_at: null };
    expect(tokenActive({ ...t, revoked_at: null })).toBe(true);
    expect(tokenActive({ ...t, revoked_at: "2026-11-21T11:00:00Z" })).toBe(false);
  });
});

describe("auditSubject", () => {
  it("joins the subject, run and drive that are set", () => {
    expect(auditSubject({ subject: "user bob", run_id: null, drive_id: null })).toBe("user bob");
    expect(auditSubject({ subject: null, run_id: 12, drive_id: 3 })).toBe("run #12 · drive 3");
    expect(auditSubject({ subject: null, run_id: null, drive_id: null })).toBe("");
  });
});

describe("formatDetails", () => {
  it("puts key=value pairs on one line, nested values as JSON", () => {
    expect(formatDetails({ from: "reviewer", to: "viewer" })).toBe("from=reviewer to=viewer");
    expect(formatDetails({ token_id: 4, ok: true, none: null, steps: ["a", "b"] })).toBe(
      'token_id=4 ok=true none=— steps=["a","b"]',
    );
    expect(formatDetails({})).toBe("");
  });
});

describe("parseDriveFilter", () => {
  it("accepts nothing or a drive id", () => {
    expect(parseDriveFilter("")).toEqual({ driveId: null, error: null });
    expect(parseDriveFilter(" 7 ")).toEqual({ driveId: 7, error: null });
  });

  it("refuses anything else", () => {
    for (const bad of ["0", "-1", "1.5", "abc"]) expect(parseDriveFilter(bad).error).not.toBeNull();
  });
});

describe("olderCursor", () => {
  it("is the oldest id of a full page, else none", () => {
    expect(olderCursor([{ id: 9 }, { id: 7 }, { id: 4 }], 3)).toBe(4);
    expect(olderCursor([{ id: 9 }, { id: 7 }], 3)).toBeNull();
    expect(olderCursor([], 3)).toBeNull();
  });
});

describe("registeredAs", () => {
  const bench = { name: "lab1" };
  const drive = (id: number, target_path: string, serial: string) =>
    ({ id, target_path, serial, bench }) as unknown as Drive;
  const device = { path: "/dev/loop0", serial: "LOOP-new" } as unknown as BenchDevice;
  it("is the drive at the device's path with its serial, else one with its serial", () => {
    const old = drive(1, "/dev/loop0", "LOOP-old");
    const same = drive(2, "/dev/loop0", "LOOP-new");
    const byId = drive(3, "/dev/disk/by-id/x", "LOOP-new");
    expect(registeredAs("lab1", device, [old, byId, same])).toEqual({ drive: same, previous: null });
    expect(registeredAs("lab1", device, [old, byId])).toEqual({ drive: byId, previous: null });
  });
  it("says which drive was at the path when another one is there now", () => {
    const old = drive(1, "/dev/loop0", "LOOP-old");
    expect(registeredAs("lab1", device, [old])).toEqual({ drive: null, previous: old });
    expect(registeredAs("other", device, [old])).toEqual({ drive: null, previous: null });
  });
});
