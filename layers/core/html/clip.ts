/** Characters kept of a task's longer texts (statements, test programs) in the report. */
const FIELD_CHARS = 4000;

/**
 * A long text cut for display, saying how long it was.
 * @example clipField('x'.repeat(5000)) // 'xxxx…… (5000 characters)'
 */
export function clipField(text: string): string {
  return text.length > FIELD_CHARS ? `${text.slice(0, FIELD_CHARS)}… (${text.length} characters)` : text;
}
