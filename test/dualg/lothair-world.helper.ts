/**
 * Three passages of a HotpotQA-like chain (Lothair II -> his mother Ermengarde of Tours; his kingdom
 * Lotharingia), shared by the graph and training-data tests; each adds the passages its own case needs.
 */
export const LOTHAIR_PASSAGES = [
  {
    id: 'Lothair II',
    title: 'Lothair II',
    text: 'Lothair II (835 - 869) was the king of Lotharingia. He was the second son of Emperor Lothair I and Ermengarde of Tours.',
  },
  {
    id: 'Ermengarde of Tours',
    title: 'Ermengarde of Tours',
    text: 'Ermengarde of Tours (died 20 March 851) was the daughter of Hugh of Tours. She married Lothair I.',
  },
  { id: 'Lotharingia', title: 'Lotharingia', text: 'Lotharingia was a kingdom in Western Europe.' },
];
