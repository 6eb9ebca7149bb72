// Placeholder while the page is built (issue 6); the route exists so links work.
export function QueuePage() {
  return (
    <div className="page">
      <h1>Queue a test</h1>
    </div>
  );
}
