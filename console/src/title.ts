import { useEffect } from 'preact/hooks';

/** Names the page after its screen, as a browser's tabs, history and screen readers show it. */
export function useTitle(screen: string): void {
  useEffect(() => {
    document.title = `${screen} · Workspace console`;
  }, [screen]);
}
