import { test } from "node:test";
import assert from "node:assert/strict";
import { executeSync, parse, validate } from "graphql";
import { buildWandbSchema, type ResolverContext, rootValue } from "../../tools/wandb-test-server/schema";
import { insertRows, RunStore } from "../../tools/wandb-test-server/run-store";

// Fragment and operations as written in wandb==0.21.0 (wandb/apis/public/{api,runs,history}.py).
const RUN_FRAGMENT = `fragment RunFragment on Run {
    id tags name displayName sweepName state config group jobType commit readOnly createdAt heartbeatAt
    description notes systemMetrics summaryMetrics historyLineCount user { name username } historyKeys
}`;

const PYTHON_OPERATIONS: Record<string, string> = {
  Viewer: `query Viewer{ viewer { id entity } }`,
  ViewerFull: `query Viewer{ viewer { id flags entity username email admin apiKeys { edges { node { id name description } } } teams { edges { node { name } } } } }`,
  ServerInfo: `query ServerInfo{ serverInfo { cliVersionInfo latestLocalVersionInfo { outOfDate latestVersionString versionOnThisInstanceString } } }`,
  ProbeRunInput: `query ProbeRunInput { RunType: __type(name:"Run") { fields { name } } }`,
  Run: `query Run($project: String!, $entity: String!, $name: String!) { project(name: $project, entityName: $entity) { run(name: $name) { projectId ...RunFragment } } } ${RUN_FRAGMENT}`,
  Runs: `query Runs($project: String!, $entity: String!, $cursor: String, $perPage: Int = 50, $order: String, $filters: JSONString) {
    project(name: $project, entityName: $entity) { internalId runCount(filters: $filters) readOnly
      runs(filters: $filters, after: $cursor, first: $perPage, order: $order) { edges { node { projectId ...RunFragment } cursor } pageInfo { endCursor hasNextPage } } } } ${RUN_FRAGMENT}`,
  RunHistoryKeys: `query RunHistoryKeys($project: String!, $entity: String!, $name: String!) { project(name: $project, entityName: $entity) { run(name: $name) { historyKeys } } }`,
  RunState: `query RunState($project: String!, $entity: String!, $name: String!) { project(name: $project, entityName: $entity) { run(name: $name) { state } } }`,
  HistoryPage: `query HistoryPage($entity: String!, $project: String!, $run: String!, $minStep: Int64!, $maxStep: Int64!, $pageSize: Int!) { project(name: $project, entityName: $entity) { run(name: $run) { history(minStep: $minStep, maxStep: $maxStep, samples: $pageSize) } } }`,
  SampledHistoryPage: `query SampledHistoryPage($entity: String!, $project: String!, $run: String!, $spec: JSONString!) { project(name: $project, entityName: $entity) { run(name: $run) { sampledHistory(specs: [$spec]) } } }`,
  RunSampledHistory: `query RunSampledHistory($project: String!, $entity: String!, $name: String!, $specs: [JSONString!]!) { project(name: $project, entityName: $entity) { run(name: $name) { sampledHistory(specs: $specs) } } }`,
  RunFullHistory: `query RunFullHistory($project: String!, $entity: String!, $name: String!, $samples: Int) { project(name: $project, entityName: $entity) { run(name: $name) { history(samples: $samples) } } }`,
  RunFullEvents: `query RunFullHistory($project: String!, $entity: String!, $name: String!, $samples: Int) { project(name: $project, entityName: $entity) { run(name: $name) { events(samples: $samples) } } }`,
  UpsertBucketCreate: `mutation UpsertBucket($project: String, $entity: String, $name: String!, $state: String) { upsertBucket(input: {modelName: $project, entityName: $entity, name: $name, state: $state}) { bucket { project { name entity { name } } id name } inserted } }`,
  UpsertBucketUpdate: `mutation UpsertBucket($id: String!, $description: String, $display_name: String, $notes: String, $tags: [String!], $config: JSONString!, $groupName: String, $jobType: String) { upsertBucket(input: {id: $id, description: $description, displayName: $display_name, notes: $notes, tags: $tags, config: $config, groupName: $groupName, jobType: $jobType}) { bucket { ...RunFragment } } } ${RUN_FRAGMENT}`,
};

// As written in @wandb/sdk@0.5.1 dist/internal/api.js.
const JS_SDK_OPERATIONS: Record<string, string> = {
  UpsertBucket: `mutation UpsertBucket($id: String $name: String $project: String $entity: String $groupName: String $description: String $displayName: String $notes: String $commit: String $config: JSONString $host: String $debug: Boolean $program: String $repo: String $jobType: String $state: String $sweep: String $tags: [String!] $summaryMetrics: JSONString) {
    upsertBucket(input: { id: $id name: $name groupName: $groupName modelName: $project entityName: $entity description: $description displayName: $displayName notes: $notes config: $config commit: $commit host: $host debug: $debug jobProgram: $program jobRepo: $repo jobType: $jobType state: $state sweep: $sweep tags: $tags summaryMetrics: $summaryMetrics }) {
      bucket { id name displayName description config sweepName project { id name entity { id name } } } inserted } }`,
  Viewer: `query Viewer { viewer { id entity flags teams { edges { node { name } } } } }`,
  RunUploadUrls: `query RunUploadUrls($name: String! $files: [String]! $entity: String $run: String! $description: String) { model(name: $name, entityName: $entity) { bucket(name: $run, desc: $description) { id files(names: $files) { uploadHeaders edges { node { name url(upload: true) updatedAt } } } } } }`,
};

const schema = buildWandbSchema();

for (const [client, ops] of [
  ["python", PYTHON_OPERATIONS],
  ["js sdk", JS_SDK_OPERATIONS],
] as const) {
  for (const [name, query] of Object.entries(ops)) {
    test(`${client} ${name} validates and executes without errors`, () => {
      const document = parse(query);
      assert.deepEqual(
        validate(schema, document).map((e) => e.message),
        [],
      );
      const store = new RunStore();
      const run = store.create("e", "p", "r1", { createdAt: "2024-01-01T00:00:00" });
      insertRows(run, ['{"_step": 0, "loss": NaN}', '{"_step": 1, "loss": 0.5}']);
      const ctx: ResolverContext = { store, viewerEntity: "e", takeShortPage: () => 0, exportOf: () => ({ urls: [], exportedRows: 0, liveListing: "all" }) };
      const variables: Record<string, unknown> = {
        entity: "e",
        project: "p",
        name: name === "RunUploadUrls" ? "p" : "r1",
        run: "r1",
        minStep: 0,
        maxStep: 2,
        pageSize: 10,
        spec: JSON.stringify({ keys: ["_step", "loss"], samples: 10 }),
        specs: [JSON.stringify({ keys: ["_step"] })],
        samples: 10,
        files: ["wandb-summary.json"],
        id: run.storageId,
        config: "{}",
      };
      const result = executeSync({ schema, document, rootValue, contextValue: ctx, variableValues: variables });
      assert.equal(result.errors, undefined, JSON.stringify(result.errors));
    });
  }
}

test("ProbeRunInput lists projectId, so the Python client asks for it", () => {
  const result = executeSync({ schema, document: parse(PYTHON_OPERATIONS.ProbeRunInput), rootValue });
  const names = (result.data as any).RunType.fields.map((f: { name: string }) => f.name);
  assert.ok(names.includes("projectId"));
  assert.ok(names.includes("history"));
});
