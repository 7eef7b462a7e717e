/** A form field's text as submitted: a file input (none here) or a missing field reads as empty. */
export function textOf(fields: FormData, name: string): string {
  const value = fields.get(name);
  return typeof value === 'string' ? value : '';
}
