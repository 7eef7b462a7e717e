/**
 * The V8 heap of a server the bench started, read over its inspector (inspector.ts).
 * `collectGarbage` is a full collection, after which what is still used is what
 * the service holds: the figure a leak would raise. The collections over a load, and what
 * they promoted, come from v8.GCProfiler in the service.
 */
import { Inspector } from './inspector.js';

export interface HeapFigures {
  /** Bytes of live objects and garbage not yet collected, in MB. */
  usedMb: number;
  /** Bytes V8 has reserved for the heap, in MB. */
  totalMb: number;
}

const MB = 1024 * 1024;

/** The collector's work over a stretch of time (HeapInspector.countCollections). */
export interface CollectionFigures {
  /** Collections of the young generation (scavenges). */
  young: number;
  /** Full collections (mark-compact). */
  full: number;
  /** What the young generation's collections moved to the old generation, in bytes. */
  promotedBytes: number;
}

/** Where the service keeps the count while it runs: a name of the bench's own, on its global object. */
const COUNT = 'workspaceBenchCollections';

/**
 * What the count makes of v8.GCProfiler's record, in the service (https://nodejs.org/api/v8.html#class-v8gcprofiler):
 * the old generation's growth across each young collection is what it promoted.
 */
const SUMMARY = `(() => {
  const { statistics } = globalThis.${COUNT}.stop();
  delete globalThis.${COUNT};
  const old = (heap) => heap.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;
  const young = statistics.filter((collection) => collection.gcType === 'Scavenge' || collection.gcType === 'MinorMarkSweep');
  return {
    young: young.length,
    full: statistics.filter((collection) => collection.gcType === 'MarkSweepCompact').length,
    promotedBytes: young.reduce((sum, collection) => sum + Math.max(0, old(collection.afterGC) - old(collection.beforeGC)), 0),
  };
})()`;

export class HeapInspector {
  private constructor(private readonly inspector: Inspector) {}

  /** Connects to the inspector listening on `port`. */
  static async connect(port: number): Promise<HeapInspector> {
    const inspector = await Inspector.connect(port);
    await inspector.call('HeapProfiler.enable');
    return new HeapInspector(inspector);
  }

  async usage(): Promise<HeapFigures> {
    const { usedSize, totalSize } = (await this.inspector.call('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
    return { usedMb: Math.round(usedSize / MB), totalMb: Math.round(totalSize / MB) };
  }

  /** A full collection, then the heap. */
  async afterCollection(): Promise<HeapFigures> {
    await this.inspector.call('HeapProfiler.collectGarbage');
    return this.usage();
  }

  /**
   * Starts counting the collections in the service. A service that keeps each request's objects
   * young promotes next to nothing a request; one whose requests outlive the young generation
   * promotes kilobytes, and collects in full every second or so (decisions 74 and 75).
   */
  async countCollections(): Promise<void> {
    await this.#evaluate(`void (globalThis.${COUNT} = new (process.getBuiltinModule('node:v8').GCProfiler)()).start()`);
  }

  /** The collections since countCollections. */
  async collectionsCounted(): Promise<CollectionFigures> {
    return (await this.#evaluate(SUMMARY)) as CollectionFigures;
  }

  async #evaluate(expression: string): Promise<unknown> {
    const { result, exceptionDetails } = (await this.inspector.call('Runtime.evaluate', { expression, returnByValue: true })) as {
      result: { value?: unknown };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (exceptionDetails) throw new Error(`in the service: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  }

  close(): void {
    this.inspector.close();
  }
}
