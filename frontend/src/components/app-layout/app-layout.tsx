import { NavLink, Outlet, useNavigation } from "react-router";
import { canWrite, useLogout, useMe } from "../../api/auth/queries";
import { Badge } from "../badge/badge";
import { HealthIndicator } from "../health-indicator/health-indicator";
import "./app-layout.css";

const navClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? "app-nav__link app-nav__link--active" : "app-nav__link";

function CurrentUser() {
  const me = useMe();
  const logout = useLogout();
  if (!me.data) return null;
  const signOut = () =>
    logout.mutate(undefined, { onSettled: () => window.location.assign("/login") });
  return (
    <div className="app-user">
      <span className="app-user__name" title={`Signed in as ${me.data.name}`}>
        {me.data.name}
      </span>
      <Badge tone={me.data.role === "viewer" ? "neutral" : "info"}>{me.data.role}</Badge>
      <button
        type="button"
        className="app-user__logout"
        onClick={signOut}
        disabled={logout.isPending}
      >
        Sign out
      </button>
    </div>
  );
}

/** Users, tokens and the audit log: only admins see the link (the page says so to others). */
function AdminLink() {
  const me = useMe();
  if (me.data?.role !== "admin") return null;
  return (
    <NavLink to="/admin" className={navClass}>
      Admin
    </NavLink>
  );
}

/** The shared links (list, views, revoke): reviewers and admins, who publish them. */
function SharesLink() {
  const me = useMe();
  if (!canWrite(me.data)) return null;
  return (
    <NavLink to="/shares" className={navClass}>
      Shared links
    </NavLink>
  );
}

/** While the router loads the next page's code, the page before stays: a bar says so. */
function NavigationBusy() {
  const navigation = useNavigation();
  if (navigation.state === "idle") return null;
  return <div className="app-busy" role="progressbar" aria-label="Loading the page" />;
}

export function AppLayout() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <NavigationBusy />
        <div className="app-header__inner">
          <NavLink to="/" className="app-brand" end>
            <span className="app-brand__mark" aria-hidden="true" />
            drivelab
          </NavLink>
          <nav className="app-nav" aria-label="Main">
            <NavLink to="/" end className={navClass}>
              Lab
            </NavLink>
            <NavLink to="/queue" className={navClass}>
              Queue a test
            </NavLink>
            <NavLink to="/compare" end className={navClass}>
              Compare
            </NavLink>
            <NavLink to="/compare/pair" className={navClass}>
              Side by side
            </NavLink>
            <NavLink to="/catalog" className={navClass}>
              Catalog
            </NavLink>
            <NavLink to="/plans" className={navClass}>
              Plans
            </NavLink>
            <SharesLink />
            <AdminLink />
          </nav>
          <div className="app-header__end">
            <HealthIndicator />
            <CurrentUser />
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
