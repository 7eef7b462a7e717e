/**
 * Outcomes and errors, announced: a status region (polite) for what went well
 * and an alert region (assertive) for what did not, both always in the page so
 * that screen readers hear every change.
 */
import { createContext } from 'preact';
import { useContext, useState } from 'preact/hooks';

interface Messages {
  status: (text: string) => void;
  alert: (text: string) => void;
  clear: () => void;
}

const MessagesContext = createContext<Messages>({ status: () => {}, alert: () => {}, clear: () => {} });

export const useMessages = () => useContext(MessagesContext);

export function MessagesProvider({ children }: { children: preact.ComponentChildren }) {
  const [status, setStatus] = useState('');
  const [alert, setAlert] = useState('');
  const messages: Messages = {
    status: (text) => {
      setAlert('');
      setStatus(text);
    },
    alert: (text) => {
      setStatus('');
      setAlert(text);
    },
    clear: () => {
      setStatus('');
      setAlert('');
    },
  };
  return (
    <MessagesContext.Provider value={messages}>
      <div role="status" class="status">
        {status}
      </div>
      <div role="alert" class="alert">
        {alert}
      </div>
      {children}
    </MessagesContext.Provider>
  );
}
