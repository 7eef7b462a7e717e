/** Sign-in: an API key and its secret, typed once and exchanged for a session; neither is kept in the page. */
import { useState } from 'preact/hooks';
import { api, sentenceOf } from '../api.js';
import { textOf } from '../form.js';
import { lengthsOf, LIMITS } from '../limits.js';
import { useMessages } from '../messages.js';
import { useTitle } from '../title.js';
import type { Session } from '../session.js';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  useTitle('Sign in');
  const messages = useMessages();
  const [busy, setBusy] = useState(false);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    setBusy(true);
    const { data, error } = await api.signIn({ api_key: textOf(fields, 'api_key'), api_key_secret: textOf(fields, 'secret') });
    setBusy(false);
    // The secret leaves the page's memory with the form.
    form.reset();
    if (data) return void onSignedIn(data);
    messages.alert(error.code === 'invalid_credentials' ? 'That key and secret do not work. Check them and try again.' : sentenceOf(error));
  };
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the workspace console</h1>
      <p>Use an API key and its secret. The browser keeps only a session, never the secret.</p>
      <form onSubmit={(event) => void submit(event)}>
        <label>
          API key
          <input name="api_key" required autocomplete="username" {...lengthsOf(LIMITS.apiKey)} pattern="[A-Za-z0-9_\-]+" />
        </label>
        <label>
          Secret
          <input name="secret" type="password" required autocomplete="current-password" {...lengthsOf(LIMITS.apiKeySecret)} />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
