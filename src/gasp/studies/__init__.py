"""Studies: the :class:`StudyType` contract and the registry of studies by name.

Each study is a package here (``gasp.studies.more_of_the_same``, ...) owning its
prompts and data, its items and stopping rule, its analysis and its report section.
Study packages never import each other; :func:`get_study_type` imports a built-in
one when it is first asked for. Other packages add studies through the
``gasp.studies`` entry point group (:data:`ENTRY_POINT_GROUP`).
"""

from gasp.studies._options import (
    PROMPT_FORM,
    PROMPT_FORM_OPTION,
    FlagStep,
    ResolvedOptions,
    StudyOption,
    check_study_options,
    resolve_study_options,
)
from gasp.studies._plugins import ENTRY_POINT_GROUP, StudyPlugin, study_plugins
from gasp.studies._registry import (
    BUILTIN_STUDY_MODULES,
    COMMON_OPTIONS,
    DEFAULT_STUDY_KIND,
    STUDY_KIND_KEY,
    StudyType,
    forget_plugins,
    get_study_type,
    plugin_warnings,
    read_study_file,
    register_study,
    reject_options,
    study_names,
    study_origin,
    study_type_for,
    study_type_of_manifest,
    study_types,
)
from gasp.studies._sizes import DECODING_KEYS, PlanSize, count_units

__all__ = [
    "BUILTIN_STUDY_MODULES",
    "COMMON_OPTIONS",
    "DECODING_KEYS",
    "DEFAULT_STUDY_KIND",
    "ENTRY_POINT_GROUP",
    "PROMPT_FORM",
    "PROMPT_FORM_OPTION",
    "STUDY_KIND_KEY",
    "FlagStep",
    "PlanSize",
    "ResolvedOptions",
    "StudyOption",
    "StudyPlugin",
    "StudyType",
    "check_study_options",
    "count_units",
    "forget_plugins",
    "get_study_type",
    "plugin_warnings",
    "read_study_file",
    "register_study",
    "reject_options",
    "resolve_study_options",
    "study_names",
    "study_origin",
    "study_plugins",
    "study_type_for",
    "study_type_of_manifest",
    "study_types",
]
