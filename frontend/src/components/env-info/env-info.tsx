import { envSections } from "./env-info-utils";
import "./env-info.css";

/** The drive and host a run recorded, readable; the full record (smartctl JSON...) below. */
export function EnvInfo({ environment }: { environment: Record<string, unknown> }) {
  const sections = envSections(environment);
  return (
    <div className="env-info">
      <div className="env-info__grid">
        {sections.map((section) => (
          <div key={section.title} className="env-info__section">
            <h3 className="env-info__title">{section.title}</h3>
            {section.rows.length === 0 ? (
              <p className="muted env-info__empty">{section.empty}</p>
            ) : (
              <dl className="env-info__list">
                {section.rows.map((row) => (
                  <div key={row.label}>
                    <dt>{row.label}</dt>
                    <dd className={row.mono ? "mono" : undefined}>{row.value}</dd>
                  </div>
                ))}
              </dl>
            )}
          </div>
        ))}
      </div>
      <details className="env-info__raw">
        <summary>Everything recorded (JSON)</summary>
        <pre tabIndex={0}>{JSON.stringify(environment, null, 2)}</pre>
      </details>
    </div>
  );
}
