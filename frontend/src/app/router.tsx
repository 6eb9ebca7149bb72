import { lazy, Suspense } from "react";
import { createBrowserRouter } from "react-router";
import { AppLayout } from "../components/app-layout/app-layout";
import { LabOverviewPage } from "../pages/lab-overview/lab-overview-page";
import { LoginPage } from "../pages/login/login-page";
import { NotFoundPage, RouteErrorPage } from "../pages/not-found/not-found-page";
import { PlansPage } from "../pages/plans/plans-page";

// The run page carries Recharts; the overview and plans pages load without it.
const RunPage = lazy(() => import("../pages/run/run-page").then((m) => ({ default: m.RunPage })));

const pageFallback = (
  <div className="page" aria-busy="true">
    <p className="muted">Loading…</p>
  </div>
);

export const router = createBrowserRouter([
  // Outside the layout: the header shows the signed-in user, and nobody is yet.
  { path: "login", element: <LoginPage />, errorElement: <RouteErrorPage /> },
  {
    element: <AppLayout />,
    errorElement: <RouteErrorPage />,
    children: [
      { index: true, element: <LabOverviewPage /> },
      {
        path: "runs/:id",
        element: (
          <Suspense fallback={pageFallback}>
            <RunPage />
          </Suspense>
        ),
      },
      { path: "plans", element: <PlansPage /> },
      { path: "*", element: <NotFoundPage /> },
    ],
  },
]);
