"""`tree-ring view` and `tree-ring report`: the project's memory as pages a person looks at.

`view` serves the store on the loopback address to one person's browser
(`server`, its gate in `gate`, the pages in `pages`, the changes in
`actions`); `report` writes one self-contained HTML file (`report`). Both
read through the library's front, `api.project.Project`, and the store's own
named reads; neither holds SQL. Both draw the same rings (`rings`) from
`store/rings.py`, and both escape every value through `markup`. Standard
library only: `http.server`, `html`, no script framework, nothing fetched
from elsewhere.
"""
