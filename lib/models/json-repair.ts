// Moved to lib/model-api/json-repair.ts (the model INTERFACE, apart from the model layer). Temporary re-export while the sprint's open edits land.
export * from '../model-api/json-repair';
