/**
 * Hosted apps as the API shows them (hosting.md §2–§5): the four declarations (app, version,
 * deployment, alias), their JSON and their paths, and the public address of an alias.
 */
import type { Site } from '../../../core/config';
import { declareResource } from '../../../rest/declarations';
import type { RenderContext } from '../../../rest/render-context';
import type { AliasRecord, AppRecord, DeploymentRecord, VersionRecord } from './app-records';
import { findApp, findAliasRecord, findVersion, readDeploymentPage, readVersionPage } from './apps-store';

/** A version as rendered: whether it is the primary alias's version is known from its app. */
export type VersionView = VersionRecord & { live: boolean };

/** The path of an app below the API root. */
export function appPath(appId: string): string {
  return `apps/${encodeURIComponent(appId)}`;
}

/** The path of a version below the API root. */
export function versionPath(appId: string, versionId: string): string {
  return `${appPath(appId)}/versions/${encodeURIComponent(versionId)}`;
}

/** The path of a deployment below the API root. */
export function deploymentPath(appId: string, deploymentId: string): string {
  return `${appPath(appId)}/deployments/${encodeURIComponent(deploymentId)}`;
}

/** The path of an alias below the API root. */
export function aliasPath(appId: string, alias: string): string {
  return `${appPath(appId)}/aliases/${encodeURIComponent(alias)}`;
}

/**
 * The public address of an alias (hosting.md §1): the site's apps URL template with the
 * account id lower-cased (browsers lower-case host names), then `/<alias>/`.
 *
 * @example appUrl(site, 'XG5908XMX3MH', 'shop') // 'http://xg5908xmx3mh.apps.localhost:4000/shop/' locally
 */
export function appUrl(site: Pick<Site, 'appsTemplate'>, accountId: string, alias: string): string {
  const root = site.appsTemplate.replaceAll('{account_id}', accountId.toLowerCase());
  return `${root.replace(/\/+$/, '')}/${alias}/`;
}

/** A version with its `live` flag, as its app says. */
export function versionView(version: VersionRecord, app: Pick<AppRecord, 'live_version_id'> | undefined): VersionView {
  return { ...version, live: app?.live_version_id === version.version_id };
}

const dates = { dates: ['date_created', 'date_modified', 'date_deployed'] } as const;

/** The app declaration (REST conventions engine). `live_version` expands to the version; the sub-collections to their first page. */
export const appDeclaration = declareResource<AppRecord>({
  name: 'app',
  collection: 'apps',
  idField: 'app_id',
  permission: 'apps',
  scope: 'account',
  formatted: dates,
  virtuals: {
    live_version: {
      resource: 'app_version',
      async compute(app) {
        if (!app.live_version_id) return undefined;
        const version = await findVersion(app.account_id, app.live_version_id);
        return version ? versionView(version, app) : undefined;
      },
    },
  },
  subCollections: {
    versions: {
      resource: 'app_version',
      async firstPage(appId, context) {
        const app = await findApp(context.accountId, appId);
        const page = await readVersionPage(context.accountId, appId, { offset: 0, limit: 100, descending: false });
        return { records: page.items.map((version) => versionView(version, app)), totalItems: page.total };
      },
    },
    deployments: {
      resource: 'app_deployment',
      async firstPage(appId, context) {
        const page = await readDeploymentPage(context.accountId, appId, { offset: 0, limit: 100, descending: false });
        return { records: page.items, totalItems: page.total };
      },
    },
    aliases: {
      resource: 'app_alias',
      async firstPage(appId, context) {
        const app = await findApp(context.accountId, appId);
        const records = app ? await appAliases(app) : [];
        return { records, totalItems: records.length };
      },
    },
  },
  idOf: (app) => app.app_id,
  toJson(app, context: RenderContext) {
    const url = context.url(appPath(app.app_id));
    return {
      object: 'app',
      url,
      app_id: app.app_id,
      account_id: app.account_id,
      name: app.name,
      alias: app.alias,
      test: app.test,
      live_version: app.live_version_id ? context.url(versionPath(app.app_id, app.live_version_id)) : null,
      live_version_id: app.live_version_id,
      live_version_number: app.live_version_number,
      app_url: appUrl(context.site, app.account_id, app.alias),
      versions: `${url}/versions`,
      deployments: `${url}/deployments`,
      aliases: `${url}/aliases`,
      settings: app.settings,
      style: app.style,
      custom_css: app.custom_css,
      custom_javascript: app.custom_javascript,
      date_created: context.date(app.created_ms),
      date_modified: context.date(app.modified_ms),
      date_deployed: context.date(app.deployed_ms),
    };
  },
});

/** The version declaration. */
export const versionDeclaration = declareResource<VersionView>({
  name: 'app_version',
  collection: 'app_versions',
  idField: 'version_id',
  permission: 'apps',
  scope: 'account',
  formatted: { dates: ['date_created'] },
  idOf: (version) => version.version_id,
  toJson(version, context: RenderContext) {
    return {
      object: 'app_version',
      url: context.url(versionPath(version.app_id, version.version_id)),
      version_id: version.version_id,
      app: context.url(appPath(version.app_id)),
      app_id: version.app_id,
      number: version.number,
      label: version.label,
      comments: version.comments,
      status: version.status,
      status_message: version.status_message,
      files: version.files,
      bytes: version.bytes,
      package_bytes: version.package_bytes,
      ignored_paths: [...version.ignored_paths],
      live: version.live,
      date_created: context.date(version.created_ms),
    };
  },
});

/** The deployment declaration. */
export const deploymentDeclaration = declareResource<DeploymentRecord>({
  name: 'app_deployment',
  collection: 'app_deployments',
  idField: 'deployment_id',
  permission: 'apps',
  scope: 'account',
  formatted: { dates: ['date_created'] },
  idOf: (deployment) => deployment.deployment_id,
  toJson(deployment, context: RenderContext) {
    return {
      object: 'app_deployment',
      url: context.url(deploymentPath(deployment.app_id, deployment.deployment_id)),
      deployment_id: deployment.deployment_id,
      app_id: deployment.app_id,
      action: deployment.action,
      version_id: deployment.version_id,
      version_number: deployment.version_number,
      previous_version_id: deployment.previous_version_id,
      previous_version_number: deployment.previous_version_number,
      auth: deployment.auth_id ? context.url(`auths/${encodeURIComponent(deployment.auth_id)}`) : null,
      user: deployment.user_id ? context.url(`users/${encodeURIComponent(deployment.user_id)}`) : null,
      date_created: context.date(deployment.created_ms),
    };
  },
});

/** The alias declaration. */
export const aliasDeclaration = declareResource<AliasRecord>({
  name: 'app_alias',
  collection: 'app_aliases',
  idField: 'alias',
  permission: 'apps',
  scope: 'account',
  formatted: { dates: ['date_created', 'date_modified'] },
  idOf: (alias) => alias.alias,
  toJson(alias, context: RenderContext) {
    return {
      object: 'app_alias',
      url: context.url(aliasPath(alias.app_id, alias.alias)),
      alias: alias.alias,
      app_id: alias.app_id,
      primary: alias.primary,
      version_id: alias.pinned_version_id,
      test: alias.test,
      app_url: appUrl(context.site, alias.account_id, alias.alias),
      date_created: context.date(alias.created_ms),
      date_modified: context.date(alias.modified_ms),
    };
  },
});

/** The aliases of an app, primary first, then by creation (strongly consistent reads of its pointers). */
export async function appAliases(app: Pick<AppRecord, 'account_id' | 'alias' | 'alias_pins'>): Promise<AliasRecord[]> {
  const found = await Promise.all(Object.keys(app.alias_pins).map((alias) => findAliasRecord(app.account_id, alias)));
  return found
    .filter((record): record is AliasRecord => record !== undefined)
    .sort((a, b) => Number(b.alias === app.alias) - Number(a.alias === app.alias) || a.created_ms - b.created_ms || (a.alias < b.alias ? -1 : 1));
}
