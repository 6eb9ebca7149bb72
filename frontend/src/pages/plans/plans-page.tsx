import { Link } from "react-router";
import { usePlans } from "../../api/plans/queries";
import { Badge } from "../../components/badge/badge";
import { ErrorBox } from "../../components/error-box/error-box";
import { ParamsTable } from "../../components/params-table/params-table";
import "./plans-page.css";

export function PlansPage() {
  const plans = usePlans();

  return (
    <div className="page">
      <div className="page-header">
        <h1>Test plans</h1>
        <span className="plans-page__links">
          <Link to="/queue">Queue a test</Link>
          <a href="#queue-from-cli">Queue a run from the CLI</a>
        </span>
      </div>

      {plans.isError && <ErrorBox error={plans.error} title="Could not load the plans" />}
      {plans.isPending && <p className="muted plans-page__loading">Loading plans…</p>}
      {plans.data?.length === 0 && <p className="muted">No plans are defined.</p>}

      {plans.data?.map((plan) => (
        <section key={plan.key} className="section" aria-labelledby={`plan-${plan.key}`}>
          <div className="section__header plans-page__header">
            <div className="plans-page__title">
              <h2 id={`plan-${plan.key}`}>{plan.title}</h2>
              <code className="plans-page__key">{plan.key}</code>
              {plan.destructive && (
                <Badge tone="danger" title="Overwrites the whole drive: every byte on it is lost">
                  destructive
                </Badge>
              )}
            </div>
          </div>
          <div className="section__body plans-page__body">
            <p className="plans-page__description">{plan.description}</p>
            <ParamsTable schema={plan.params_schema} />
            <p className="plans-page__cli">
              <Link to={`/queue?plan=${encodeURIComponent(plan.key)}`} className="button">
                Queue {plan.key}
              </Link>{" "}
              <span className="muted">or</span> <code>drivelab run {plan.key} --drive ID</code>
            </p>
          </div>
        </section>
      ))}

      <section id="queue-from-cli" className="section" aria-labelledby="cli-heading">
        <div className="section__header">
          <h2 id="cli-heading">Queue a run from the CLI</h2>
        </div>
        <div className="section__body plans-page__body">
          <p>
            Besides <Link to="/queue">Queue a test</Link> in the browser, where the drivelab
            command is installed, run:
          </p>
          <pre className="plans-page__usage">drivelab run four-corners --drive ID</pre>
          <p className="muted">
            Replace <code>four-corners</code> with a plan key from this page and <code>ID</code>{" "}
            with the drive&apos;s ID from the Drives table on the Lab page. The run appears under
            Recent runs and streams live on its page.
          </p>
        </div>
      </section>
    </div>
  );
}
