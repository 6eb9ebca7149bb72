import { NavLink, Outlet } from "react-router";
import { HealthIndicator } from "../health-indicator/health-indicator";
import "./app-layout.css";

const navClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? "app-nav__link app-nav__link--active" : "app-nav__link";

export function AppLayout() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header__inner">
          <NavLink to="/" className="app-brand" end>
            <span className="app-brand__mark" aria-hidden="true" />
            drivelab
          </NavLink>
          <nav className="app-nav" aria-label="Main">
            <NavLink to="/" end className={navClass}>
              Lab
            </NavLink>
            <NavLink to="/plans" className={navClass}>
              Plans
            </NavLink>
          </nav>
          <div className="app-header__end">
            <HealthIndicator />
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
