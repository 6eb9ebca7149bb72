import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "../api/client";
import { isSigningOut, loginPath } from "../lib/auth-utils";

/** A 401 means nobody is signed in (or the session ended): go to the login page, and come
 * back here afterwards. The login page handles its own 401s (a wrong password). */
function signInOnUnauthorized(error: unknown): void {
  if (!(error instanceof ApiError) || error.status !== 401) return;
  if (typeof window === "undefined" || window.location.pathname === "/login") return;
  // Signing out: the app is on its way to the login page already.
  if (isSigningOut()) return;
  window.location.assign(loginPath(window.location.pathname + window.location.search));
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: signInOnUnauthorized }),
  mutationCache: new MutationCache({ onError: signInOnUnauthorized }),
  defaultOptions: {
    queries: {
      staleTime: 1_000,
      // A 4xx (unknown run, bad request) will not get better by asking again.
      retry: (failureCount, error) =>
        !(error instanceof ApiError && error.status >= 400 && error.status < 500) &&
        failureCount < 2,
    },
  },
});
