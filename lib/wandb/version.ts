/**
 * Version of this W&B history reader. It goes into the User-Agent and into every archive manifest,
 * so a frozen archive says which reader wrote it. Bump it when the fetched or frozen bytes change.
 */

/** Reader version written to manifests and sent in the User-Agent. */
export const READER_VERSION = "0.1.0";

/** User-Agent of the official public client shape; W&B servers gate some fields on this prefix. */
export const USER_AGENT = `W&B Public Client ${READER_VERSION} (rl-run-diagnostics history reader)`;
