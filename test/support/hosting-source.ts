/**
 * An in-memory `HostingSource` for serving tests: accounts, apps, versions and alias
 * pointers set up by the test, every read recorded. Manifests are built from the files as the
 * apps branch builds them (bytes, an MD5 etag like S3's, a content type by extension).
 */
import { createHash } from 'node:crypto';
import type { AccountFacts, AliasPointer, AppRecord, HostingSource, VersionManifest } from '../../shared/modules/hosting/serving';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  png: 'image/png',
  svg: 'image/svg+xml',
  txt: 'text/plain; charset=utf-8',
};

/** Public facts of a test account. */
export const TEST_FACTS: AccountFacts = {
  company_name: 'Acme',
  support_email: 'help@acme.test',
  support_website: null,
  currencies: ['USD', 'EUR'],
  allow_save_cards: true,
  payment_method_types: ['credit_card'],
};

/** A fake source and the knobs the test turns. */
export interface FakeHostingSource extends HostingSource {
  reads: string[];
  addAccount(accountId: string, facts?: AccountFacts): void;
  addApp(app: Partial<AppRecord> & { app_id: string; account_id: string }): AppRecord;
  addVersion(accountId: string, appId: string, versionId: string, files: Record<string, string | Buffer>, uploadedMs?: number): VersionManifest;
  point(accountId: string, alias: string, appId: string, versionId: string | null, test?: boolean): void;
}

/** A new empty fake source. */
export function fakeHostingSource(): FakeHostingSource {
  const reads: string[] = [];
  const accounts = new Map<string, AccountFacts>();
  const apps = new Map<string, AppRecord>();
  const manifests = new Map<string, VersionManifest>();
  const files = new Map<string, Buffer>();
  const pointers = new Map<string, AliasPointer>();
  return {
    reads,
    addAccount: (accountId, facts = TEST_FACTS) => void accounts.set(accountId, facts),
    addApp(app) {
      const record: AppRecord = {
        name: 'Shop',
        alias: 'shop',
        test: false,
        live_version_id: null,
        settings: {},
        style: {},
        custom_css: null,
        custom_javascript: null,
        created_ms: 0,
        modified_ms: 0,
        deployed_ms: null,
        live_version_number: null,
        previous_version_id: null,
        alias_pins: {},
        versions_uploaded: 0,
        deployments_made: 0,
        revision: 0,
        seq: 0,
        ...app,
      } as AppRecord;
      apps.set(`${app.account_id}/${app.app_id}`, record);
      return record;
    },
    addVersion(accountId, appId, versionId, contents, uploadedMs = Date.UTC(2026, 10, 20, 16, 2, 11)) {
      const manifest: VersionManifest = { version_id: versionId, uploaded_ms: uploadedMs, files: {} };
      for (const [path, content] of Object.entries(contents)) {
        const body = Buffer.from(content);
        files.set(`${accountId}/${appId}/${versionId}/${path}`, body);
        const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
        manifest.files[path] = { bytes: body.length, etag: createHash('md5').update(body).digest('hex'), content_type: TYPES[extension] ?? 'application/octet-stream' };
      }
      manifests.set(`${accountId}/${appId}/${versionId}`, manifest);
      return manifest;
    },
    point: (accountId, alias, appId, versionId, test = false) => void pointers.set(`${accountId}/${alias}`, { account_id: accountId, alias, app_id: appId, version_id: versionId, test }),
    pointer(accountId, alias) {
      reads.push(`pointer ${accountId}/${alias}`);
      return Promise.resolve(pointers.get(`${accountId}/${alias}`));
    },
    app(accountId, appId) {
      reads.push(`app ${accountId}/${appId}`);
      return Promise.resolve(apps.get(`${accountId}/${appId}`));
    },
    manifest(accountId, appId, versionId) {
      reads.push(`manifest ${accountId}/${appId}/${versionId}`);
      return Promise.resolve(manifests.get(`${accountId}/${appId}/${versionId}`));
    },
    file(accountId, appId, versionId, path) {
      reads.push(`file ${accountId}/${appId}/${versionId}/${path}`);
      return Promise.resolve(files.get(`${accountId}/${appId}/${versionId}/${path}`));
    },
    account(accountId) {
      reads.push(`account ${accountId}`);
      return Promise.resolve(accounts.get(accountId));
    },
  };
}
