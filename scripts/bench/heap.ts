/**
 * The V8 heap of a server the bench started, read over its inspector (inspector.ts).
 * `collectGarbage` is a full collection, after which what is still used is what
 * the service holds: the figure a leak would raise.
 */
import { Inspector } from './inspector.js';

export interface HeapFigures {
  /** Bytes of live objects and garbage not yet collected, in MB. */
  usedMb: number;
  /** Bytes V8 has reserved for the heap, in MB. */
  totalMb: number;
}

const MB = 1024 * 1024;

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

  close(): void {
    this.inspector.close();
  }
}
