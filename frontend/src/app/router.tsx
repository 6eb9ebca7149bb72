import { lazy, Suspense, type ReactNode } from "react";
import { createBrowserRouter } from "react-router";
import { AppLayout } from "../components/app-layout/app-layout";
import { LabOverviewPage } from "../pages/lab-overview/lab-overview-page";
import { LoginPage } from "../pages/login/login-page";
import { NotFoundPage, RouteErrorPage } from "../pages/not-found/not-found-page";
import { PlansPage } from "../pages/plans/plans-page";

// Pages with charts carry Recharts; the overview, queue and plans pages load without it.
const RunPage = lazy(() => import("../pages/run/run-page").then((m) => ({ default: m.RunPage })));
const PtsReportPage = lazy(() =>
  import("../pages/pts-report/pts-report-page").then((m) => ({ default: m.PtsReportPage })),
);
const QueuePage = lazy(() =>
  import("../pages/queue/queue-page").then((m) => ({ default: m.QueuePage })),
);
const SharesPage = lazy(() =>
  import("../pages/shares/shares-page").then((m) => ({ default: m.SharesPage })),
);
const CatalogPage = lazy(() =>
  import("../pages/catalog/catalog-page").then((m) => ({ default: m.CatalogPage })),
);
const ComparePage = lazy(() =>
  import("../pages/compare/compare-page").then((m) => ({ default: m.ComparePage })),
);
const SideBySidePage = lazy(() =>
  import("../pages/side-by-side/side-by-side-page").then((m) => ({ default: m.SideBySidePage })),
);
const ReportPage = lazy(() =>
  import("../pages/report/report-page").then((m) => ({ default: m.ReportPage })),
);
const SeriesPage = lazy(() =>
  import("../pages/series/series-page").then((m) => ({ default: m.SeriesPage })),
);
const FirmwarePage = lazy(() =>
  import("../pages/firmware/firmware-page").then((m) => ({ default: m.FirmwarePage })),
);
const FirmwareArticlePage = lazy(() =>
  import("../pages/firmware-article/firmware-article-page").then((m) => ({
    default: m.FirmwareArticlePage,
  })),
);
const AdminPage = lazy(() =>
  import("../pages/admin/admin-page").then((m) => ({ default: m.AdminPage })),
);
const SharedPage = lazy(() =>
  import("../pages/shared/shared-page").then((m) => ({ default: m.SharedPage })),
);

const pageFallback = (
  <div className="page" aria-busy="true">
    <p className="muted">Loading…</p>
  </div>
);

const suspended = (page: ReactNode) => <Suspense fallback={pageFallback}>{page}</Suspense>;

export const router = createBrowserRouter([
  // Outside the layout: the header shows the signed-in user, and nobody is yet.
  { path: "login", element: <LoginPage />, errorElement: <RouteErrorPage /> },
  // A published comparison opens read-only, without signing in.
  { path: "shared/:token", element: suspended(<SharedPage />), errorElement: <RouteErrorPage /> },
  {
    element: <AppLayout />,
    errorElement: <RouteErrorPage />,
    children: [
      { index: true, element: <LabOverviewPage /> },
      { path: "queue", element: suspended(<QueuePage />) },
      { path: "runs/:id", element: suspended(<RunPage />) },
      { path: "runs/:id/report", element: suspended(<PtsReportPage />) },
      { path: "series/:id", element: suspended(<SeriesPage />) },
      { path: "models/:id/firmware", element: suspended(<FirmwarePage />) },
      { path: "models/:id/firmware/article", element: suspended(<FirmwareArticlePage />) },
      { path: "compare", element: suspended(<ComparePage />) },
      { path: "compare/pair", element: suspended(<SideBySidePage />) },
      { path: "report", element: suspended(<ReportPage />) },
      { path: "catalog", element: suspended(<CatalogPage />) },
      { path: "shares", element: suspended(<SharesPage />) },
      { path: "plans", element: <PlansPage /> },
      { path: "admin", element: suspended(<AdminPage />) },
      { path: "*", element: <NotFoundPage /> },
    ],
  },
]);
