import { useEffect, useRef, useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { useLogin, useOnceLogin } from "../../api/auth/queries";
import { ErrorBox } from "../../components/error-box/error-box";
import { loginPath, safeNext } from "../../lib/auth-utils";
import "./login-page.css";

/**
 * Sign in with a name and password, or with a one-time link (`/login?once=TOKEN`, printed by
 * `drivelab up` and `drivelab login-link`), which signs in by itself as soon as it opens.
 */
export function LoginPage() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const next = safeNext(searchParams.get("next"));
  const once = searchParams.get("once");
  const login = useLogin();
  const onceLogin = useOnceLogin();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");

  // The link works once: post it once, even when effects run twice (React's StrictMode).
  const usedOnce = useRef<string | null>(null);
  useEffect(() => {
    if (!once || usedOnce.current === once) return;
    usedOnce.current = once;
    // The token is spent either way: keep it out of the address bar and the history.
    window.history.replaceState(null, "", loginPath(next));
    onceLogin.mutate(once, { onSuccess: () => navigate(next, { replace: true }) });
  }, [once, next, navigate, onceLogin]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ name, password }, { onSuccess: () => navigate(next, { replace: true }) });
  };

  return (
    <main id="main" className="login-page">
      <div className="login-page__card">
        <div className="login-page__brand">
          <span className="app-brand__mark" aria-hidden="true" />
          drivelab
        </div>
        <h1>Sign in</h1>
        {onceLogin.isPending && <p className="muted">Signing in with your one-time link…</p>}
        {onceLogin.isError && (
          <ErrorBox error={onceLogin.error} title="The sign-in link did not work" />
        )}
        <form className="login-page__form" onSubmit={onSubmit}>
          <label>
            <span>Name</span>
            <input
              name="name"
              autoComplete="username"
              required
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </label>
          <label>
            <span>Password</span>
            <input
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          {login.isError && <ErrorBox error={login.error} title="Could not sign in" />}
          <button type="submit" className="button login-page__submit" disabled={login.isPending}>
            {login.isPending ? "Signing in…" : "Sign in"}
          </button>
        </form>
        <p className="muted login-page__hint">
          No password? On the machine running drivelab, <code>drivelab login-link</code> prints a
          one-time sign-in link.
        </p>
      </div>
    </main>
  );
}
