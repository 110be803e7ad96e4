/** The pagination envelope of the list endpoints (the shape mongoose-paginate-v2 produces). */
export interface Page<T> {
  docs: T[];
  totalDocs: number;
  offset: number;
  limit: number;
  totalPages: number;
  page: number;
  pagingCounter: number;
  hasPrevPage: boolean;
  hasNextPage: boolean;
  prevPage: number | null;
  nextPage: number | null;
}

export function paginate<T>(docs: T[], totalDocs: number, page: number, limit: number): Page<T> {
  const totalPages = Math.max(1, Math.ceil(totalDocs / limit));
  const hasPrevPage = page > 1;
  const hasNextPage = page < totalPages;
  return {
    docs,
    totalDocs,
    offset: (page - 1) * limit,
    limit,
    totalPages,
    page,
    pagingCounter: (page - 1) * limit + 1,
    hasPrevPage,
    hasNextPage,
    prevPage: hasPrevPage ? page - 1 : null,
    nextPage: hasNextPage ? page + 1 : null,
  };
}
