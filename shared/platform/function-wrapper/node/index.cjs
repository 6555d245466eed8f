// PLACEHOLDER for the fn-cloud branch only: the real Node.js wrapper (functions.md §10) is written
// in parallel and replaces this file on merge. It exists so the packaging and bundling tests of
// the Lambda adapter have a file at the path the deployed handler `__cartwheel__/index.handler` names.
exports.handler = async () => ({ __cartwheel__: { kind: 'error', errorType: 'Placeholder', errorMessage: 'placeholder wrapper' } });
