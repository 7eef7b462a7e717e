/** Users: searched on the server by username or name, paged by cursor; each page and search at a URL of its own. */
import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import type { User } from 'workspace-user-api/client';
import { api, sentenceOf } from '../api.js';
import { lengthsOf, LIMITS } from '../limits.js';
import { useMessages } from '../messages.js';
import { useTitle } from '../title.js';
import { useCan } from '../session.js';
import { RecordTable } from '../record-table.js';

const PAGE_SIZE = 25;

const withQuery = (query: Record<string, string | undefined>) => {
  const shown = Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1]));
  return `/console/users${shown.length ? `?${new URLSearchParams(shown).toString()}` : ''}`;
};

const stateOf = (user: User) => [user.locked ? 'Locked' : '', user.disabled ? 'Disabled' : ''].filter(Boolean).join(', ') || 'Active';

export function Users() {
  const { query, route } = useLocation();
  const messages = useMessages();
  const can = useCan();
  const search = query.search ?? '';
  const cursor = query.cursor;
  const group = query.group;
  const [groupName, setGroupName] = useState<string | undefined>(undefined);
  const heading = group ? `Members of ${groupName ?? 'a group'}` : 'Users';
  useTitle(search ? `${heading} matching ${search}` : heading);
  const [page, setPage] = useState<{ users: User[]; total: number; next: string | null } | undefined>(undefined);
  const [typed, setTyped] = useState(search);

  useEffect(() => {
    setTyped(search);
    let current = true;
    void api
      .getUsers({
        page_size: PAGE_SIZE,
        ...(search ? { search } : { sort_by: 'username' }),
        ...(group ? { group_id: group } : {}),
        ...(cursor ? { cursor } : {}),
      })
      .then(({ data, error }) => {
        if (!current) return;
        if (error) return void messages.alert(sentenceOf(error));
        setPage({ users: data.users, total: data.total, next: data.next_cursor ?? null });
      });
    return () => {
      current = false;
    };
  }, [search, cursor, group]);

  useEffect(() => {
    if (!group || !can('groups_view')) return void setGroupName(undefined);
    void api.getGroups({}).then(({ data }) => setGroupName(data?.groups.find((found) => found.group_id === group)?.name));
  }, [group]);

  return (
    <section aria-labelledby="users-heading">
      <div class="heading-row">
        <h1 id="users-heading">{heading}</h1>
        {can('users_create') && (
          <span class="actions">
            <a class="button" href="/console/users/new">
              New user
            </a>
            <a class="button" href="/console/users/import">
              Import from CSV
            </a>
          </span>
        )}
      </div>
      <form
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          route(withQuery({ search: typed.trim() || undefined, group }));
        }}
      >
        <label>
          Search users
          <input type="search" value={typed} {...lengthsOf(LIMITS.search)} onInput={(event) => setTyped(event.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      {page === undefined ? (
        <p>Loading users…</p>
      ) : (
        <>
          <p>{search ? `${page.total} users match “${search}”.` : `${page.total} users.`}</p>
          <RecordTable
            caption={<>Users{search ? ` matching ${search}` : ''}</>}
            columns={['Username', 'Name', 'Organization', 'Groups', 'State', 'Last session']}
          >
            {page.users.map((user) => (
              <tr key={user.user_id}>
                <td>
                  <a href={`/console/users/${user.user_id}`}>{user.username}</a>
                </td>
                <td>{[user.first_name, user.last_name].filter(Boolean).join(' ')}</td>
                <td>{user.organization}</td>
                <td>{user.groups.map((group) => group.name ?? group.group_id).join(', ')}</td>
                <td>{stateOf(user)}</td>
                <td>{user.last_session ? new Date(user.last_session).toLocaleString() : 'Never'}</td>
              </tr>
            ))}
          </RecordTable>
          <nav aria-label="Pages of users" class="pages">
            {cursor && <a href={withQuery({ search: search || undefined, group })}>First page</a>}
            {page.next && <a href={withQuery({ search: search || undefined, group, cursor: page.next })}>Next page</a>}
          </nav>
        </>
      )}
    </section>
  );
}
