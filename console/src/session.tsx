/** The signed-in session, as the app knows it: its key's name and permissions, and sign-out. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { components } from 'workspace-user-api/client';

export type Session = components['schemas']['ConsoleSession'];
export type Permission = components['schemas']['Permission'];

export const SessionContext = createContext<Session | undefined>(undefined);

/** The session of a page that is signed in (every page but the sign-in). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('a page that needs a session was shown without one');
  return session;
}

/** Whether the session's key holds `permission`: what the console offers follows it. */
export const useCan = () => {
  const session = useSession();
  return (permission: Permission) => session.key.permissions.includes(permission);
};
