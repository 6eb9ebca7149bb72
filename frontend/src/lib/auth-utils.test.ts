import { describe, expect, it } from "vitest";
import { csrfHeaders, loginPath, readCookie, safeNext } from "./auth-utils";

describe("readCookie", () => {
  it("finds a cookie among others, trimmed and decoded", () => {
    const cookies = "a=1; drivelab_csrf=abc%2Fdef ; b=2";
    expect(readCookie(cookies, "drivelab_csrf")).toBe("abc/def");
    expect(readCookie(cookies, "a")).toBe("1");
  });

  it("is null when the cookie is absent or the string empty", () => {
    expect(readCookie("", "drivelab_csrf")).toBeNull();
    expect(readCookie("x_drivelab_csrf=1", "drivelab_csrf")).toBeNull();
  });

  it("keeps a value that is not valid URI encoding", () => {
    expect(readCookie("t=%E0%A4%A", "t")).toBe("%E0%A4%A");
  });
});

describe("csrfHeaders", () => {
  const cookies = "drivelab_csrf=tok";

  it("adds the header on unsafe methods only", () => {
    expect(csrfHeaders("POST", cookies)).toEqual({ "X-CSRF-Token": "tok" });
    expect(csrfHeaders("delete", cookies)).toEqual({ "X-CSRF-Token": "tok" });
    expect(csrfHeaders("GET", cookies)).toEqual({});
  });

  it("adds nothing without the cookie (an API token needs no CSRF)", () => {
    expect(csrfHeaders("POST", "other=1")).toEqual({});
  });
});

describe("safeNext", () => {
  it("keeps paths of this app", () => {
    expect(safeNext("/runs/3?step=4")).toBe("/runs/3?step=4");
  });

  it("refuses other sites and the login page", () => {
    expect(safeNext("https://evil.example")).toBe("/");
    expect(safeNext("//evil.example")).toBe("/");
    expect(safeNext("/\\evil.example")).toBe("/");
    expect(safeNext("/login?once=x")).toBe("/");
    expect(safeNext(null)).toBe("/");
  });
});

describe("loginPath", () => {
  it("carries where to come back to", () => {
    expect(loginPath("/runs/3")).toBe("/login?next=%2Fruns%2F3");
    expect(loginPath("/")).toBe("/login");
  });
});
