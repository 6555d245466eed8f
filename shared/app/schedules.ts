/**
 * The schedule table: periodic jobs, as data. The CDK stack runs each from an EventBridge
 * rule; the local runtime runs the same handler on a timer and whenever the manual clock
 * moves, so a job due after `advance_seconds` runs promptly.
 */
import type { FamilyGrants } from './routes';

/** One periodic job. */
export interface ScheduleDefinition {
  name: string;
  description: string;
  /** Handler module (exporting `handler`, called with no meaningful event). */
  entry: string;
  everyMinutes: number;
  memoryMb: number;
  grants: FamilyGrants;
}

/** Every periodic job. */
export const schedules: readonly ScheduleDefinition[] = [
  {
    name: 'due-work',
    description: 'Runs due work no process finished: unsent confirmation emails, payments whose process died, image deletions, event deliveries, license requests, app file clean-up, alias pointers not yet copied to the CDN, function deployments and removals',
    entry: 'handlers/jobs/due-work.ts',
    everyMinutes: 1,
    // A hosted function's deployment builds its package (the zip and the wrapper, up to 50 MB) in memory.
    memoryMb: 1024,
    // Image files of deleted and abandoned images are removed here, and the files of failed,
    // deleted and abandoned app versions and deleted apps (read from their manifests).
    // Due event deliveries and license requests are handed to their queues. Alias pointers a
    // request did not copy to the CDN's KeyValueStore are copied here (app-edge-pointer work).
    grants: {
      table: 'readWrite',
      // Hosted functions' variables are opened to deploy them.
      secrets: 'decrypt',
      email: true,
      sendsTo: ['event-notifications', 'license-requests'],
      objects: [
        { bucket: 'apps', prefix: 'images/', delete: true },
        { bucket: 'apps', prefix: 'apps/', delete: true },
        { bucket: 'apps', prefix: 'app-manifests/', read: true, delete: true },
        // Hosted function deployments (the zip, packaged with the wrapper in the cloud) and removals.
        { bucket: 'functions', prefix: 'functions/', read: true, put: true, delete: true },
      ],
      edgePointers: true,
      functions: 'manage',
    },
  },
];
