/** "An idle step …", "A purge step …": the article follows the kind's first sound. */
export function noSamplesText(kind: string): string {
  const article = /^[aeiou]/i.test(kind) ? "An" : "A";
  return `${article} ${kind} step reports no per-second I/O samples.`;
}
