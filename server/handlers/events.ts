/** The change feed: getEvents. */
import type { Handlers, Services } from './types.js';

export function eventHandlers({ directory }: Services): Pick<Handlers, 'getEvents'> {
  return {
    async getEvents({ after, types, resource_id, limit, wait_seconds }) {
      const { events, nextCursor } = await directory.events.follow({
        ...(after === undefined ? {} : { after }),
        ...(types === undefined ? {} : { types }),
        ...(resource_id === undefined ? {} : { resourceId: resource_id }),
        ...(limit === undefined ? {} : { limit }),
        ...(wait_seconds === undefined ? {} : { waitSeconds: wait_seconds }),
      });
      return { events, next_cursor: nextCursor };
    },
  };
}
