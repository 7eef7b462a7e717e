/**
 * The console session of one request, as the session operations use it: begun
 * for the key the request authenticated, read, or ended, with its cookie set or
 * cleared on the answer (session-cookie.ts).
 */
import type { Request, Response } from 'express';
import type { ConsoleSessionAnswer, ConsoleSessionControl } from '../handlers/types.js';
import type { ConsoleSessions, LiveSession } from '../keys/console-sessions.js';
import { clearedSessionCookie, sessionCookie } from './session-cookie.js';

function answerOf(session: LiveSession, sessions: ConsoleSessions): ConsoleSessionAnswer {
  const { api_key, name, permissions, expires } = session.key;
  return {
    key: { api_key, name, permissions, expires },
    csrf_token: session.csrfToken,
    expires: session.expires,
    idle_timeout_seconds: Math.round(sessions.timeouts.idleMs / 1000),
  };
}

export function consoleSessionControl(req: Request, res: Response, sessions: ConsoleSessions): ConsoleSessionControl {
  // Set by authenticate() for a request under a session (http/authenticate.ts).
  const underSession = () => {
    const session = res.locals.consoleSession as LiveSession | undefined;
    if (!session) throw new Error('a session operation reached without a session');
    return session;
  };
  return {
    async begin() {
      const key = res.locals.apiKey as LiveSession['key'] | undefined;
      if (!key) throw new Error('sign-in reached without a key');
      const session = await sessions.begin(key);
      res.append('Set-Cookie', sessionCookie(req, session.token, new Date(session.expires)));
      return answerOf(session, sessions);
    },
    current: () => answerOf(underSession(), sessions),
    async end() {
      await sessions.end(underSession());
      res.append('Set-Cookie', clearedSessionCookie(req));
    },
  };
}
