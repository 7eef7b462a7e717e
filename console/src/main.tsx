/**
 * The web console: a page on the service's own origin (`/console`), each screen
 * at a URL of its own, every call through the typed SDK under the console
 * session (docs/console.md).
 */
import { render } from 'preact';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, holdCsrfToken, sentenceOf, whenSessionEnds } from './api.js';
import { MessagesProvider, useMessages } from './messages.js';
import { AuditLog } from './screens/audit-log.js';
import { ApiKeys } from './screens/api-keys.js';
import { Groups } from './screens/groups.js';
import { ImportUsers } from './screens/import-users.js';
import { SignIn } from './screens/sign-in.js';
import { UserPage } from './screens/user.js';
import { Webhooks } from './screens/webhooks.js';
import { Users } from './screens/users.js';
import { type Session, SessionContext } from './session.js';

const NAVIGATION = [
  ['/console/users', 'Users'],
  ['/console/groups', 'Groups'],
  ['/console/keys', 'API keys'],
  ['/console/audit', 'Audit log'],
  ['/console/webhooks', 'Webhooks'],
] as const;

function Navigation({ onSignOut }: { onSignOut: () => void }) {
  const { path } = useLocation();
  return (
    <header class="bar">
      <span class="brand">Workspace console</span>
      <nav aria-label="Console">
        <ul>
          {NAVIGATION.map(([href, label]) => (
            <li key={href}>
              <a href={href} aria-current={path.startsWith(href) ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <button type="button" class="quiet" onClick={onSignOut}>
        Sign out
      </button>
    </header>
  );
}

/** `/console` and anything unknown under it: the users. */
function ToUsers() {
  const { route } = useLocation();
  useEffect(() => route('/console/users', true), []);
  return null;
}

function Console() {
  const messages = useMessages();
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  useEffect(() => {
    whenSessionEnds(() => {
      holdCsrfToken(undefined);
      setSession(null);
    });
    void api.getSession({}).then(({ data }) => {
      holdCsrfToken(data?.csrf_token);
      setSession(data ?? null);
    });
  }, []);

  const signedIn = (begun: Session) => {
    holdCsrfToken(begun.csrf_token);
    setSession(begun);
    messages.status(`Signed in as ${begun.key.name}.`);
  };
  const signOut = async () => {
    const { error } = await api.signOut({});
    if (error && error.code !== 'session_ended') return void messages.alert(sentenceOf(error));
    holdCsrfToken(undefined);
    setSession(null);
    messages.status('Signed out.');
  };

  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  return (
    <SessionContext.Provider value={session}>
      <Navigation onSignOut={() => void signOut()} />
      <main id="main">
        <Router>
          <Route path="/console/users" component={Users} />
          <Route path="/console/users/new" component={UserPage} />
          <Route path="/console/users/import" component={ImportUsers} />
          <Route path="/console/users/:userId" component={UserPage} />
          <Route path="/console/groups" component={Groups} />
          <Route path="/console/keys" component={ApiKeys} />
          <Route path="/console/audit" component={AuditLog} />
          <Route path="/console/webhooks" component={Webhooks} />
          <Route default component={ToUsers} />
        </Router>
      </main>
    </SessionContext.Provider>
  );
}

const root = document.getElementById('app');
if (!root) throw new Error('the console page has no #app element');
render(
  <LocationProvider scope="/console">
    <MessagesProvider>
      <Console />
    </MessagesProvider>
  </LocationProvider>,
  root,
);
