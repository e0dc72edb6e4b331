/**
 * KnowForge's notebook kit (its manifest's `notebookKit`): what notebooks 23, 29 and 31 call as
 * `kf.method('knowforge').<name>`: the round-cap usage table, the error attribution stages, the
 * retrieval-by-question-type measurement, and its configuration rows and one-shot family.
 */
export { capUsageRows, capsOfLabel } from './cap-usage';
export { attributeErrors, attributionAgreement, modelClassifier, modelReviewer, ruleClassifier, ruleReviewer, ATTRIBUTION_CLASSES } from './error-attribution';
export { multihopRagShared, multihopRagRetrievalByType, retrievalByType } from './retrieval-by-type';
export { CONFIGURATIONS } from '../configurations';
export { oneShotPipeline, oneShotFamily } from '../one-shot';
