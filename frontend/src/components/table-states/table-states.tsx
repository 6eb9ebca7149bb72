import type { ReactNode } from "react";

interface TableStateRowProps {
  colSpan: number;
  children: ReactNode;
}

/** A full-width row for "loading" and "nothing here" inside a table body. */
export function TableStateRow({ colSpan, children }: TableStateRowProps) {
  return (
    <tr>
      <td className="table__empty" colSpan={colSpan}>
        {children}
      </td>
    </tr>
  );
}
