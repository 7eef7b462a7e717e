from __future__ import absolute_import

# flake8: noqa

# import apis into api package
from workspace_user_api.api.audit_api import AuditApi
from workspace_user_api.api.credentials_api import CredentialsApi
from workspace_user_api.api.documentation_api import DocumentationApi
from workspace_user_api.api.groups_api import GroupsApi
from workspace_user_api.api.operations_api import OperationsApi
from workspace_user_api.api.users_api import UsersApi
