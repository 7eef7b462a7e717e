/**
 * A table of records, as every screen lists them: a caption (for screen readers alone unless
 * `captionShown`), a header row naming each column, and, when the rows carry buttons, a last
 * column named "Actions" for screen readers; then the rows.
 */
import type { ComponentChildren } from 'preact';

export function RecordTable({
  caption,
  captionShown = false,
  columns,
  actions = false,
  children,
}: {
  caption: ComponentChildren;
  captionShown?: boolean;
  columns: readonly string[];
  actions?: boolean;
  children: ComponentChildren;
}) {
  return (
    <table>
      <caption class={captionShown ? undefined : 'visually-hidden'}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
          {actions && (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
