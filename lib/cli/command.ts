/**
 * The command contract moved to lib/pipeline/command.ts (issue 30): a method's plug-in declares its
 * commands, so the contract sits below the methods. The CLI's own commands import it from here.
 */
export * from '../pipeline/command';
