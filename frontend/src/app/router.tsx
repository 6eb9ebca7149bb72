import type { ComponentType } from "react";
import { createBrowserRouter, type LazyRouteFunction, type RouteObject } from "react-router";
import { AppLayout } from "../components/app-layout/app-layout";
import { LabOverviewPage } from "../pages/lab-overview/lab-overview-page";
import { LoginPage } from "../pages/login/login-page";
import { NotFoundPage, RouteErrorPage } from "../pages/not-found/not-found-page";
import { PlansPage } from "../pages/plans/plans-page";

// Pages with charts carry Recharts; the overview, queue and plans pages load without it. The
// others are loaded by the router (a route's `lazy`) before it renders the route, not by
// React.lazy under a Suspense boundary: React holds a boundary's content back for up to 300 ms
// after its fallback showed (its fallback throttle), and a page's queries start only once its
// content is committed, so every first open of a chart page waited ~300 ms for nothing. While
// a page's code loads after a click, the page before stays, under the header's busy bar
// (AppLayout); the first load of the app shows pageFallback.
function page<M>(load: () => Promise<M>, pick: (m: M) => ComponentType): LazyRouteFunction<RouteObject> {
  return async () => ({ Component: pick(await load()) });
}

const pageFallback = (
  <div className="page" aria-busy="true">
    <p className="muted">Loading…</p>
  </div>
);

export const router = createBrowserRouter([
  // Outside the layout: the header shows the signed-in user, and nobody is yet.
  { path: "login", element: <LoginPage />, errorElement: <RouteErrorPage /> },
  // A published comparison opens read-only, without signing in.
  {
    path: "shared/:token",
    lazy: page(() => import("../pages/shared/shared-page"), (m) => m.SharedPage),
    hydrateFallbackElement: pageFallback,
    errorElement: <RouteErrorPage />,
  },
  {
    element: <AppLayout />,
    errorElement: <RouteErrorPage />,
    hydrateFallbackElement: pageFallback,
    children: [
      { index: true, element: <LabOverviewPage /> },
      { path: "queue", lazy: page(() => import("../pages/queue/queue-page"), (m) => m.QueuePage) },
      { path: "runs/:id", lazy: page(() => import("../pages/run/run-page"), (m) => m.RunPage) },
      {
        path: "runs/:id/report",
        lazy: page(() => import("../pages/pts-report/pts-report-page"), (m) => m.PtsReportPage),
      },
      {
        path: "series/:id",
        lazy: page(() => import("../pages/series/series-page"), (m) => m.SeriesPage),
      },
      {
        path: "models/:id/firmware",
        lazy: page(() => import("../pages/firmware/firmware-page"), (m) => m.FirmwarePage),
      },
      {
        path: "models/:id/firmware/article",
        lazy: page(
          () => import("../pages/firmware-article/firmware-article-page"),
          (m) => m.FirmwareArticlePage,
        ),
      },
      {
        path: "compare",
        lazy: page(() => import("../pages/compare/compare-page"), (m) => m.ComparePage),
      },
      {
        path: "compare/pair",
        lazy: page(() => import("../pages/side-by-side/side-by-side-page"), (m) => m.SideBySidePage),
      },
      { path: "report", lazy: page(() => import("../pages/report/report-page"), (m) => m.ReportPage) },
      {
        path: "catalog",
        lazy: page(() => import("../pages/catalog/catalog-page"), (m) => m.CatalogPage),
      },
      {
        path: "shares",
        lazy: page(() => import("../pages/shares/shares-page"), (m) => m.SharesPage),
      },
      { path: "plans", element: <PlansPage /> },
      { path: "admin", lazy: page(() => import("../pages/admin/admin-page"), (m) => m.AdminPage) },
      { path: "*", element: <NotFoundPage /> },
    ],
  },
]);
