/**
 * Importing users from a CSV file, with the CLI's columns and rules (lib/user-import.ts):
 * a progress bar as the rows go, and what became of each row. Running the same file again
 * makes no user twice: the rows created before are answered as "already created".
 */
import { useState } from 'preact/hooks';
import { ImportFileError, IMPORT_COLUMNS, importRows, rowsOfCsv, type RowOutcome } from '../../../lib/user-import.js';
import { api, sentenceOf } from '../api.js';
import { useMessages } from '../messages.js';
import { useCan } from '../session.js';
import { useTitle } from '../title.js';
import { RecordTable } from '../record-table.js';

const RESULT = { created: 'Created', already_created: 'Already created by an earlier import' } as const;

function resultOf(outcome: RowOutcome): string {
  if (outcome.outcome !== 'failed') return RESULT[outcome.outcome];
  return 'code' in outcome.error ? sentenceOf(outcome.error) : outcome.error.message;
}

export function ImportUsers() {
  useTitle('Import users');
  const messages = useMessages();
  const can = useCan();
  const [total, setTotal] = useState(0);
  const [outcomes, setOutcomes] = useState<RowOutcome[]>([]);
  const [running, setRunning] = useState(false);

  const run = async (event: SubmitEvent) => {
    event.preventDefault();
    const file = (event.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>('input[type=file]')?.files?.[0];
    if (!file) return void messages.alert('Choose a CSV file first.');
    let rows;
    try {
      rows = rowsOfCsv(await file.text());
    } catch (error) {
      if (error instanceof ImportFileError) return void messages.alert(`${file.name}: ${error.message}.`);
      throw error;
    }
    setTotal(rows.length);
    setOutcomes([]);
    setRunning(true);
    messages.status(`Importing ${rows.length} rows…`);
    const seen: RowOutcome[] = [];
    let summary;
    try {
      summary = await importRows(api, rows, (outcome) => {
        seen.push(outcome);
        setOutcomes([...seen]);
      });
    } catch (error) {
      setRunning(false);
      if (error instanceof ImportFileError) return void messages.alert(`${error.message}.`);
      throw error;
    }
    setRunning(false);
    const earlier = summary.alreadyCreated > 0 ? `, ${summary.alreadyCreated} by an earlier import` : '';
    const failed = summary.failed.length > 0 ? `; ${summary.failed.length} failed` : '';
    messages.status(`Created ${summary.created} of ${summary.rows} users${earlier}${failed}.`);
  };

  if (!can('users_create')) return <p>Your key cannot create users: it lacks the users_create permission.</p>;
  return (
    <section aria-labelledby="import-heading">
      <p>
        <a href="/console/users">Back to the list</a>
      </p>
      <h1 id="import-heading">Import users</h1>
      <p>
        A CSV file with a header row naming its columns, in any order: {IMPORT_COLUMNS.join(', ')}. Only username is required; locked and
        disabled take true or false.
      </p>
      <form onSubmit={(event) => void run(event)} class="inline">
        <label>
          CSV file
          <input type="file" accept=".csv,text/csv" required disabled={running} />
        </label>
        <button type="submit" disabled={running}>
          Import
        </button>
      </form>
      {total > 0 && (
        <>
          <label>
            Import progress
            <progress max={total} value={outcomes.length}>
              {outcomes.length} of {total}
            </progress>
          </label>
          <RecordTable caption="What became of each row" columns={['Line', 'Username', 'Result']}>
            {outcomes.map((outcome) => (
              <tr key={outcome.line} class={outcome.outcome === 'failed' ? 'unmet' : undefined}>
                <td>{outcome.line}</td>
                <td>{outcome.username}</td>
                <td>{resultOf(outcome)}</td>
              </tr>
            ))}
          </RecordTable>
        </>
      )}
    </section>
  );
}
