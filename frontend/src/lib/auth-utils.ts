/** The CSRF cookie the api sets at sign-in; its value goes back in X-CSRF-Token. */
export const CSRF_COOKIE = "drivelab_csrf";
export const CSRF_HEADER = "X-CSRF-Token";

const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** The value of cookie `name` in a `document.cookie` string, or null. */
export function readCookie(cookies: string, name: string): string | null {
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return part.slice(eq + 1).trim();
      }
    }
  }
  return null;
}

/** Headers an unsafe request signed in by the session cookie must carry (double submit). */
export function csrfHeaders(method: string, cookies: string): Record<string, string> {
  if (SAFE_METHODS.has(method.toUpperCase())) return {};
  const token = readCookie(cookies, CSRF_COOKIE);
  return token ? { [CSRF_HEADER]: token } : {};
}

/**
 * Where to go after signing in: `next` when it is a path of this app (never another site,
 * never the login page itself), else the overview.
 */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) {
    return "/";
  }
  if (next === "/login" || next.startsWith("/login?") || next.startsWith("/login#")) return "/";
  return next;
}

/** The login page's address that brings the user back to `path` afterwards. */
export function loginPath(path: string): string {
  const next = safeNext(path);
  return next === "/" ? "/login" : `/login?next=${encodeURIComponent(next)}`;
}

let signingOut = false;

/** From now on a 401 is expected (the session is being ended): no redirect with `next`. */
export function beginSignOut(): void {
  signingOut = true;
}

export function isSigningOut(): boolean {
  return signingOut;
}
