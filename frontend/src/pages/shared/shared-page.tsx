// Placeholder while the page is built (issue 6); the route exists so links work.
export function SharedPage() {
  return (
    <div className="page">
      <h1>Shared comparison</h1>
    </div>
  );
}
