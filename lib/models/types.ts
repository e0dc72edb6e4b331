// Moved to lib/model-api/types.ts (the model INTERFACE, apart from the model layer). Temporary re-export while the sprint's open edits land.
export * from '../model-api/types';
