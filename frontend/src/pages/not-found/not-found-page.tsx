import { Link, isRouteErrorResponse, useRouteError } from "react-router";
import { ErrorBox } from "../../components/error-box/error-box";

export function NotFoundPage() {
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. Go to the <Link to="/">lab overview</Link>.
      </p>
    </div>
  );
}

/** Shown when rendering a route throws: the error stays visible instead of a blank page. */
export function RouteErrorPage() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error;
  return (
    <div className="page">
      <ErrorBox error={message} title="This page failed to render" />
      <p>
        <Link to="/">Back to the lab overview</Link>
      </p>
    </div>
  );
}
