/**
 * What of a request outlives the young generation's collections (scavenges), by where it was
 * allocated: two of V8's sampling heap profiles under the same load, one of every allocation
 * and one of only what no scavenge freed (HeapProfiler.startSampling's
 * `includeObjectsCollectedByMinorGC: false`), compared site by site. What survives a scavenge is
 * promoted to the old generation, which only full collections free: BENCHMARKS.md, "What
 * outlives a scavenge", found a request's objects promoted whole or not at all, and this is how.
 */
import { labelOf } from './summary.js';

/** A node of a sampling heap profile (the Chrome DevTools Protocol's HeapProfiler.SamplingHeapProfileNode). */
export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapProfileNode[];
}

export interface SamplingHeapProfile {
  head: HeapProfileNode;
}

/** One profile's sampled bytes, by the function that allocated them. */
export function bytesBySite(profile: SamplingHeapProfile): Map<string, number> {
  const bytes = new Map<string, number>();
  const visit = (node: HeapProfileNode) => {
    if (node.selfSize > 0) {
      const site = labelOf({ id: 0, callFrame: node.callFrame });
      bytes.set(site, (bytes.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return bytes;
}

/** A profile and the requests answered while it sampled. */
export interface Sampled {
  profile: SamplingHeapProfile;
  requests: number;
}

/**
 * The sites whose allocations outlive scavenges most, per request: bytes allocated (from the
 * profile of everything), bytes that survived (from the profile of the survivors) and the share.
 * The two profiles sample different runs, so a share is an estimate: above 100 % is sampling's
 * noise, not more surviving than was made.
 */
export function summariseSurvivors(everything: Sampled, survivors: Sampled, limit = 25): string[] {
  const allocated = bytesBySite(everything.profile);
  const survived = bytesBySite(survivors.profile);
  const perRequest = (bytes: number, requests: number) => bytes / requests;
  const total = (bytes: Map<string, number>, requests: number) =>
    perRequest(
      [...bytes.values()].reduce((sum, b) => sum + b, 0),
      requests,
    );
  const lines = [
    `${(total(allocated, everything.requests) / 1024).toFixed(1)} KB allocated a request (${everything.requests} requests sampled); ` +
      `${(total(survived, survivors.requests) / 1024).toFixed(2)} KB of it outlived the scavenges (${survivors.requests} requests sampled)`,
    '',
    `bytes/request allocated  survived  share  site (the ${limit} whose allocations survived most)`,
  ];
  const rows = [...survived]
    .map(([site, bytes]) => ({
      site,
      survived: perRequest(bytes, survivors.requests),
      made: perRequest(allocated.get(site) ?? 0, everything.requests),
    }))
    .sort((a, b) => b.survived - a.survived)
    .slice(0, limit);
  for (const { site, survived: kept, made } of rows) {
    const share = made > 0 ? `${Math.round((100 * kept) / made)} %` : '–';
    lines.push(`${made.toFixed(0).padStart(23)}  ${kept.toFixed(0).padStart(8)}  ${share.padStart(5)}  ${site}`);
  }
  return lines;
}
