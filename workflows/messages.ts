/** Inputs and results of workflows, shared by the workflows and by the API that starts them. */
export type SystemCheckResult = {
  workflowId: string;
  databaseTime: string;
};
