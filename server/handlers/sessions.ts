/** The web console's sessions: signIn, getSession, signOut (http/session-control.ts keeps them on the wire). */
import type { Handlers } from './types.js';

export function sessionHandlers(): Pick<Handlers, 'signIn' | 'getSession' | 'signOut'> {
  return {
    async signIn(_body, { consoleSession }) {
      return consoleSession.begin();
    },
    async getSession(_body, { consoleSession }) {
      return consoleSession.current();
    },
    async signOut(_body, { consoleSession }) {
      await consoleSession.end();
      return {};
    },
  };
}
