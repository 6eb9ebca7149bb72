import { useState } from "react";
import { useRunJobs } from "../../api/runs/queries";
import { ErrorBox } from "../error-box/error-box";
import "./job-files.css";

/**
 * The fio job files the plan compiled to, fetched the first time the section is opened.
 * They are the exact input fio got, so a reviewer can rerun a step by hand.
 */
export function JobFiles({ runId }: { runId: number }) {
  const [opened, setOpened] = useState(false);
  const jobs = useRunJobs(runId, { enabled: opened });

  return (
    <details
      className="section job-files"
      onToggle={(e) => {
        if (e.currentTarget.open) setOpened(true);
      }}
    >
      <summary>
        Job files
        {jobs.data && <span className="muted job-files__count">{jobs.data.length}</span>}
      </summary>
      <div className="section__body job-files__body">
        {jobs.isPending && opened && <p className="muted">Loading job files…</p>}
        {jobs.isError && <ErrorBox error={jobs.error} title="Could not load the job files" />}
        {jobs.data?.length === 0 && <p className="muted">This run has no fio job files.</p>}
        {jobs.data
          ?.slice()
          .sort((a, b) => a.idx - b.idx)
          .map((job) => (
            <section key={`${job.step_id}-${job.name}`} className="job-files__job">
              <h3 className="job-files__name">
                <span className="muted">Step {job.idx + 1}</span> {job.name}
              </h3>
              {job.command && (
                <pre className="job-files__command" tabIndex={0}>
                  $ {job.command}
                </pre>
              )}
              <pre className="job-files__pre" tabIndex={0}>
                {job.job_file}
              </pre>
            </section>
          ))}
      </div>
    </details>
  );
}
